"""`runtime.simulate`: a whole pool over hours or days (issue 15), its public face.

`read_pool(path) -> PoolSpec` and `example_text()` (runtime.simulate.poolfile: the
POOL_FILE format, documented by its commented example); `Simulation(pool, semantics=,
seed=)` and its `run(until) -> Record` (runtime.simulate.engine: slots running their
compiled tables, owners, jobs, the negotiator and the accountant on one clock; a
Record keeps the transitions compact in `log` and gives them as event-log entries with
`events()` or the `transitions` list);
`summary(record, slots)`, `write_outputs(dir, record, metrics)`, `table_lines(metrics)`
(runtime.simulate.metrics).
"""

from runtime.simulate.engine import Record, Simulation
from runtime.simulate.metrics import entitled_slots, summary, table_lines, write_outputs
from runtime.simulate.poolfile import PoolFileError, PoolSpec, example_text, pool_spec, read_pool

__all__ = [
    "PoolFileError",
    "PoolSpec",
    "Record",
    "Simulation",
    "entitled_slots",
    "example_text",
    "pool_spec",
    "read_pool",
    "summary",
    "table_lines",
    "write_outputs",
]
