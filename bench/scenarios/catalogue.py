"""Every scenario the command line can run, by the part name it is chosen with (--only=echo, --only=echo-models):
the write-ups (writeup_definitions.py), the detail scenarios (echo_bench.py, websocket_bench.py,
httpfanout_bench.py) and the microbenchmarks (microbenchmarks.py), each a definition (definition.py).

    catalogue.BY_PART["echo-models"].document     # "echo_bench"
"""

from bench.scenarios import echo_bench
from bench.scenarios import httpfanout_bench
from bench.scenarios import microbenchmarks
from bench.scenarios import websocket_bench
from bench.scenarios import writeup_definitions

WRITEUPS = writeup_definitions.ALL
DETAILS = (echo_bench.DEFINITION, websocket_bench.DEFINITION, httpfanout_bench.DEFINITION)
MICRO = microbenchmarks.DEFINITION
BY_PART = {d.name: d for d in WRITEUPS + DETAILS + (MICRO,)}
BY_DOCUMENT = {d.document: d for d in WRITEUPS + DETAILS + (MICRO,)}
ALL = WRITEUPS + DETAILS + (MICRO,)
