"""The scenarios, as definitions (definition.py; every one by its part name in catalogue.py): the write-ups'
loads over the registry's contestants (scenarios.py), their claims (writeup_definitions.py) and sections
(writeups.py); the detail loads of netbench's models against the Go servers (echo_bench.py, websocket_bench.py,
httpfanout_bench.py, rendered by detail_sections.py); the kernel's prices beside them (kernel_costs.py). Every
one runs through the one round loop, design/scheduler.py."""
