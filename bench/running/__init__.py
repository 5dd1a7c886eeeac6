"""Running programs: building and finding them (binaries.py), servers and clients as processes
(server_process.py, client_process.py), their CPU clock (process_cpu.py), ports, rounds, their placement on
this machine's CPUs (placement.py) or on other hosts over SSH (ssh_host.py, remote_program.py,
remote_placement.py), and the one runner of a registry entry (contest.py)."""
