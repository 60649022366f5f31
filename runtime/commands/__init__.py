"""One module per `condor-policy` sub-command.

Each module defines `NAME: str`, `HELP: str`, `add_arguments(parser)` and
`run(args) -> int`. `runtime.cli` discovers them, so adding a command is adding a
module here.
"""
