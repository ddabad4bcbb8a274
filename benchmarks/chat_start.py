"""How soon `chat` reaches the model, at 10 and at 2,000 people, against a
bare langchain script that sends the same messages to the same endpoint.

    python benchmarks/chat_start.py [RUNS] [--people 2000]     (default 9 runs)

The model is a fake OpenAI-compatible endpoint in this process
(tests/stub_server.py on 127.0.0.1). When a request reaches it, it reads the
CPU time the client process has used so far (/proc/<pid>/stat: user +
system, of all its threads and of the git processes it waited for): that
is the cost of reaching the model, which a busy machine disturbs far less
than wall time. The whole process's CPU (to its exit, our commit included)
is shown too.

The floor is a bare script: langchain-openai imported, the messages `chat`
sent read from a file, one streamed request to the same endpoint. Both
workspaces hold the same persona (alice, with three people naming her in
their `related`), so the messages are alike at both sizes; the other people
have a profile, events, memory and a log each. Runs are interleaved (floor,
chat at 10, floor, chat at the larger size, in turn), with bytecode cached
and one untimed run first; medians are compared.

Targets: `chat -m` reaches the model within 1.2x the floor at both sizes,
and at 2,000 people within 1.05x of the same at 10 (flat in people)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import stub_server  # noqa: E402

FLOOR = '''
import json, sys
from langchain_openai import ChatOpenAI
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from openai import Timeout
from pydantic import SecretStr
body = json.load(open(sys.argv[1], encoding="utf-8"))
kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
messages = [kinds[m["role"]](content=m["content"]) for m in body["messages"]]
model = ChatOpenAI(model=body["model"], api_key=SecretStr("not-needed"), base_url=sys.argv[2],
                   temperature=body.get("temperature"), timeout=Timeout(60, connect=10), max_retries=0)
print("".join(chunk.content for chunk in model.stream(messages)))
'''

LINKS = 3  # people who name alice in their `related`, at every size
GOAL_FLOOR, GOAL_FLAT = 1.2, 1.05


def build(root: Path, people: int) -> None:
    """The example workspace, alice in it, and `people` others like her, committed."""
    from heartcompass.store.config_edit import set_config
    from heartcompass.store.creation import create_workspace

    ws, _ = create_workspace(root, example=True)
    alice = root / "people" / "alice"
    texts = {name: (alice / name).read_text(encoding="utf-8") for name in ("PROFILE.md", "EVENTS.md", "MEMORY.md")}
    log = "---\ndate: 2026-11-01\n---\n\n- 10:00:00 · me · hello there\n"
    for i in range(people):
        folder = root / "people" / f"p{i:05d}"
        (folder / "logs").mkdir(parents=True)
        for name, text in texts.items():
            if name == "PROFILE.md":
                text = text.replace("name: Alice Chen", f"name: Person {i}").replace("- Alice\n", f"- P{i}\n")
                text = text.replace("- 小爱\n", "").replace("person: me", "person: alice" if i < LINKS else "person: me")
            (folder / name).write_text(text, encoding="utf-8")
        (folder / "logs" / "2026-11-01.md").write_text(log, encoding="utf-8")
    set_config(ws, "llm.base_url", "http://127.0.0.1:1/v1")  # replaced by the endpoint's, below
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=b@x", "commit", "-qm", "people"], cwd=root,
                   check=True, capture_output=True)


def process_cpu(pid: int) -> float:
    """CPU seconds so far of a process: its threads, and the children it waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


class Endpoint:
    """The fake model: notes the client's CPU when its request arrives."""

    def __init__(self):
        self.server, self.state = stub_server.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        self.pid = 0
        self.reached: list[float] = []
        handler = self.server.RequestHandlerClass
        endpoint, post = self, handler._post

        def noting(request):
            endpoint.reached.append(process_cpu(endpoint.pid))
            post(request)

        handler._post = noting

    def run(self, cmd: list[str], env: dict) -> tuple[float, float]:
        """(CPU when the request arrived, CPU of the whole run) of one process."""
        self.reached.clear()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = subprocess.Popen(cmd, env=env, cwd=env["PYTHONPYCACHEPREFIX"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.pid = child.pid
        _, errors = child.communicate()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if child.returncode or len(self.reached) != 1:
            sys.exit(f"{cmd[-3:]} failed ({child.returncode}, {len(self.reached)} requests): {errors.decode()[-800:]}")
        return self.reached[0], after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="?", type=int, default=9)
    ap.add_argument("--people", type=int, default=2000)
    args = ap.parse_args()
    endpoint = Endpoint()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env0 = {k: v for k, v in os.environ.items() if k not in ("HEARTCOMPASS_HOME", "PYTHONDONTWRITEBYTECODE")}
        env0["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        env0["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env0.get("PYTHONPATH")]))
        (tmp / "pycache").mkdir()
        (tmp / "floor.py").write_text(FLOOR, encoding="utf-8")
        cmds: dict[str, tuple[list[str], dict]] = {}
        sizes = (10, args.people)
        for n in sizes:
            root = tmp / f"ws{n}"
            build(root, n)
            env = {**env0, "HEARTCOMPASS_HOME": str(root)}
            subprocess.run([sys.executable, "-m", "heartcompass", "config", "set", "llm.base_url", endpoint.url],
                           env=env, check=True, capture_output=True)
            cmds[f"chat {n}"] = ([sys.executable, "-m", "heartcompass", "chat", "alice", "-m", "hi, 周末去爬山吗?"], env)
            endpoint.run(*cmds[f"chat {n}"])  # warm: bytecode, the people index
            sent = tmp / f"messages{n}.json"
            sent.write_text(json.dumps(endpoint.state.requests[-1], ensure_ascii=False), encoding="utf-8")
            cmds[f"floor {n}"] = ([sys.executable, str(tmp / "floor.py"), str(sent), endpoint.url], env0)
            endpoint.run(*cmds[f"floor {n}"])
        time.sleep(2.1)  # stat_cache's rule: only files unchanged for two seconds are cached
        for cmd, env in cmds.values():  # the caches as a chat leaves them
            endpoint.run(cmd, env)
        samples: dict[str, list[tuple[float, float]]] = {label: [] for label in cmds}
        for _ in range(args.runs):
            for n in sizes:  # a busy moment of the machine falls on both sides
                for label in (f"floor {n}", f"chat {n}"):
                    samples[label].append(endpoint.run(*cmds[label]))
    reach = {label: statistics.median(r for r, _ in s) for label, s in samples.items()}
    whole = {label: statistics.median(w for _, w in s) for label, s in samples.items()}
    print(f"CPU when the request reaches the model (median of {args.runs} interleaved runs), whole process in ()")
    for n in sizes:
        ratio = reach[f"chat {n}"] / reach[f"floor {n}"]
        print(f"  {n:>5} people: chat {reach[f'chat {n}'] * 1000:5.0f} ms ({whole[f'chat {n}'] * 1000:5.0f}), "
              f"bare langchain {reach[f'floor {n}'] * 1000:5.0f} ms ({whole[f'floor {n}'] * 1000:5.0f}): "
              f"{ratio:.2f}x the floor ({'ok' if ratio <= GOAL_FLOOR else 'OVER'}, goal {GOAL_FLOOR}x)")
    flat = reach[f"chat {args.people}"] / reach["chat 10"]
    print(f"  chat at {args.people} people / at 10: {flat:.2f}x "
          f"({'ok' if flat <= GOAL_FLAT else 'OVER'}, goal {GOAL_FLAT}x: flat in people)")


if __name__ == "__main__":
    main()
