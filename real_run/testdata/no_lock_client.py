# An external lock client for lockstep's tests (docs/external-clients.md) that takes no lock
# at all: every acquire is answered ok at once. Any run with two clients or more must be
# caught breaking mutual exclusion. Python's standard library only.
import json
import sys


def say(message):
    print(json.dumps(message), flush=True)


def read():
    line = sys.stdin.readline()
    return json.loads(line) if line else None


while True:
    request = read()
    if request is None:
        break  # end of the run
    op = request["op"]
    if op == "hello":
        say({"id": request["id"], "type": "ok", "protocol": 1})
    elif op == "critical_section":
        say({"call": "read"})
        value = read()["value"]
        if request["write"]:
            say({"call": "write", "value": value + 1})
            read()
        say({"id": request["id"], "type": "ok"})
    else:  # acquire, release
        say({"id": request["id"], "type": "ok"})
print("no-lock client: end of input", file=sys.stderr)
