"""A program for tests of the CPU clocks: a thread spins 0.2 s of its own CPU time and exits, then the process
prints "spun" and waits for a signal, spending nothing more. A reading of its CPU then counts a thread that
exited and stays put while it is read again (over SSH, or directly).

    child = subprocess.Popen(["/usr/bin/python3", "-c", spinner.PROGRAM], stdout=subprocess.PIPE, text=True)
"""

SPUN_S = 0.2
PROGRAM = f"""
import signal, threading, time
def spin():
    start = time.thread_time()
    while time.thread_time() - start < {SPUN_S}:
        pass
thread = threading.Thread(target=spin)
thread.start()
thread.join()
print("spun", flush=True)
signal.pause()
"""
