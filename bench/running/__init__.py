"""Running programs: where they run (executor.py: one interface; local.py this machine, ssh.py a host over
SSH, fake.py in memory for tests; remote_placement.py the server host and client fleet), building and finding
them (binaries.py), servers and clients as processes (server_process.py, client_process.py), their CPU clock
(process_cpu.py), ports, rounds, their placement on this machine's CPUs (placement.py), and the one runner of a
registry entry (contest.py)."""
