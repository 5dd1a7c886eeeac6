"""The scenarios, as definitions (definition.py; every one by its part name in catalogue.py): the write-ups'
loads over the registry's contestants (writeup_cases.py), their quotes, loads and claims as data
(bench/registry/writeups/*.toml, read by claim_files.py into writeup_definitions.py) and their sections
(writeup_sections.py); how any claim is judged (judging.py); a user's own claims (claim_files.py, run as parts
by your_claims.py); the detail loads of netbench's models against the Go servers (echo_bench.py,
websocket_bench.py, httpfanout_bench.py, their comparisons read by claim_files.py from
bench/registry/details/*.toml, rendered by detail_sections.py); the kernel's prices beside them
(kernel_costs.py). Every one runs through the one round loop, design/scheduler.py."""
