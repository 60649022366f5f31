"""The runtime stage: run compiled tables (slots, sensors, clocks, jobs) and the CLI.

Imports `compiler`; `compiler` never imports `runtime`.
"""
