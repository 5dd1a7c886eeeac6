"""The scenarios: the write-ups' loads over the registry's contestants (scenarios.py) and their claims
(writeups.py); the detail loads of netbench's models against the Go servers (echo_bench.py, websocket_bench.py,
httpfanout_bench.py); the kernel's prices beside them (kernel_costs.py). Every one runs through
running/contest.py's runner."""
