"""LoCoMo, the public long-conversation memory benchmark, on HeartCompass.

    python benchmarks/locomo.py DATA.json --base-url URL --model NAME [--judge-model NAME]
        [--api-key-env VAR] [--conversations N] [--questions N] [--out DIR] [--person a|b] [--workers N]

DATA.json is LoCoMo's own file (data/locomo10.json from
https://github.com/snap-research/locomo; not shipped here: its license is
non-commercial). For each conversation: a fresh workspace in which one
speaker is a person (speaker_a, or speaker_b with --person b) and the other
the user; the conversation imported as a WhatsApp export the way `heartcompass
import` does; the real gardener run on it; then every question of categories
1 to 4 (5 is adversarial and left out, as the published evaluations do) asked
twice on the same model: through the prompt `chat` sends (memory/context.py's
builder, with the question as the conversation at hand) and with the whole
conversation in context (the full-context baseline); on both, the user's
message is the question with a request for a short answer
(prompts/locomo/answer.md). A judge model grades
each answer CORRECT or WRONG with the generous rubric published with the Mem0
evaluation (see locomo_score.py, prompts/locomo/judge.md); token F1 too.

Printed: J (the share judged CORRECT), F1, prompt tokens and latency, overall,
per category and per side (questions about the person and about the user, by
whose lines the evidence is), HeartCompass and full context side by side;
and how many lines the gardener kept, refused and asked per conversation
(results.json's meta.gardens), the refused ones listed in DIR/refused.txt
with their reasons. DIR/results.json holds every answer. Everything is cached in DIR (default
./locomo-out): rerun the same command after an interruption to resume.

Any OpenAI-compatible endpoint works; the key is read from the variable
--api-key-env names (none for a local server). The numbers that matter come
from a capable model; tests run it against tests/stub_server.py."""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import locomo_run as runner  # noqa: E402
import locomo_score as score  # noqa: E402
from locomo_data import CATEGORIES, DataError, load  # noqa: E402

GARDENED = ("gardened", "up to date")
SIDE_NAMES = {"person": "about the person", "user": "about the user", "both": "about both",
              "unknown": "evidence not found"}


class Progress:
    """One line on stderr: redrawn in place on a terminal, else printed as
    a line per stage and per tenth of a count (logs stay short)."""

    def __init__(self, stream=sys.stderr):
        self.stream, self.live = stream, stream.isatty()
        self.started = time.monotonic()
        self.lock = threading.Lock()  # answers arrive from several threads
        self._tenth = None
        self._open = False

    def show(self, text: str, done: bool = False, count: tuple[int, int] | None = None) -> None:
        from heartcompass.sanitize import strip_controls

        with self.lock:
            elapsed = int(time.monotonic() - self.started)
            line = f"[{elapsed // 60}:{elapsed % 60:02d}] {strip_controls(text)}"
            if self.live:
                import shutil

                from rich.cells import set_cell_size  # wide (CJK) characters take two columns

                width = shutil.get_terminal_size().columns - 1  # a wrapped line could not be redrawn
                self.stream.write("\r\x1b[K" + set_cell_size(line, width).rstrip() + ("\n" if done else ""))
                self.stream.flush()
                self._open = not done
                return
            tenth = (count[0] * 10 // max(1, count[1]), count[1]) if count else None
            if done or tenth is None or tenth != self._tenth:
                print(line, file=self.stream, flush=True)
            self._tenth = tenth

    def end(self) -> None:
        if self.live and self._open:  # the redrawn line ends before anything else is printed
            self.stream.write("\n")
            self.stream.flush()


def arguments(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="Rerun the same command to resume: answers and grades are cached in --out.")
    ap.add_argument("data", type=Path, help="LoCoMo's JSON (data/locomo10.json).")
    ap.add_argument("--base-url", required=True, help="An OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")
    ap.add_argument("--model", required=True, help="The model that gardens and answers.")
    ap.add_argument("--judge-model", help="The model that grades (default: --model).")
    ap.add_argument("--api-key-env", help="The environment variable holding the endpoint's key, e.g. "
                    "OPENAI_API_KEY (default: HEARTCOMPASS_LLM_API_KEY when set; none for a local server).")
    ap.add_argument("--conversations", type=int, help="Only the first N conversations.")
    ap.add_argument("--questions", type=int, help="Only the first N questions of each conversation.")
    ap.add_argument("--out", type=Path, default=Path("locomo-out"), help="Where caches and results go "
                    "(default: %(default)s).")
    ap.add_argument("--person", choices=("a", "b"), default="a",
                    help="Which speaker is the person; the other is the user (default: a).")
    ap.add_argument("--workers", type=int, default=4, help="Requests at once while asking (default: %(default)s).")
    args = ap.parse_args(argv)
    for flag in ("conversations", "questions", "workers"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            ap.error(f"--{flag} must be at least 1 (got {value}).")
    return args


def main(argv=None) -> int:
    args = arguments(argv)
    try:
        return run(args)
    except (DataError, runner.BenchError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a full disk, a folder that cannot be written
        print(f"error: {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nStopped. What is done is kept in {args.out}; run the same command again to resume.",
              file=sys.stderr)
        return 130


def run(args) -> int:
    from heartcompass.errors import HeartCompassError

    samples = load(args.data, args.person)[:args.conversations]
    folders = [runner.folder_name(s.sample_id) for s in samples]
    if len(set(folders)) < len(folders):
        raise DataError(f"{args.data}: two samples share a sample_id ({', '.join(folders)}); each needs its own.")
    key = os.environ.get(args.api_key_env or "HEARTCOMPASS_LLM_API_KEY", "")
    if args.api_key_env and not key:
        raise runner.BenchError(f"--api-key-env {args.api_key_env}: that variable is not set. Export it "
                                "with the endpoint's key, or leave --api-key-env out for an endpoint without one.")
    # the documented overrides: the workspaces' files never hold the endpoint or the key
    os.environ.update(HEARTCOMPASS_LLM_PROVIDER="openai-compatible", HEARTCOMPASS_LLM_BASE_URL=args.base_url,
                      HEARTCOMPASS_LLM_MODEL=args.model, HEARTCOMPASS_LLM_API_KEY=key)
    out = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise runner.BenchError(f"--out {out}: cannot make this folder ({exc.strerror or exc}).") from None
    runner.hold(out)
    check_meta(out, args)
    answers, grades = runner.Records(out / "answers.jsonl"), runner.Records(out / "grades.jsonl")
    progress = Progress()
    rows = []
    try:
        for n, (sample, folder) in enumerate(zip(samples, folders), 1):
            short = sample.sample_id if len(sample.sample_id) <= 16 else sample.sample_id[:15] + "…"
            tag = f"{n}/{len(samples)} {short}"  # the stage after it stays on the line
            rows += conversation(args, out / folder, sample, tag, answers, grades, progress)
    except HeartCompassError as exc:
        raise runner.BenchError(f"{exc.message}" + (f" {exc.hint}" if getattr(exc, "hint", None) else "")) \
            from None
    finally:
        progress.end()
    stats = score.summary(rows, SIDE_NAMES)
    meta = {"data": str(args.data), "base_url": redact(args.base_url), "model": args.model,
            "judge_model": args.judge_model or args.model, "person_is": f"speaker_{args.person}",
            "conversations": len(samples), "questions": len(rows),
            "gardens": {s.sample_id: read_stage(out / f / "stage.json").get("garden") for s, f in zip(samples, folders)}}
    runner.write_json(out / "results.json", {"meta": meta, "summary": stats, "answers": rows})
    print(f"LoCoMo on {args.model} (judge {meta['judge_model']}): {len(samples)} conversations, "
          f"{len(rows)} questions (categories 1-4)")
    print("\n".join(score.table(stats)))
    print(score.target_line(stats, SIDE_NAMES))
    print(runner.lines_report(out, meta["gardens"]))
    unlabelled = sum(1 for r in rows for side in score.SIDES if r.get(side, {}).get("unlabelled"))
    if unlabelled:
        print(f"note: the judge gave no CORRECT or WRONG label, twice, for {unlabelled} answers; they count as "
              "WRONG (see 'unlabelled' in results.json).")
    print(f"every answer: {out / 'results.json'}")
    return 0


def check_meta(out: Path, args) -> None:
    """One --out holds one run: a different model or speaker would mix answers."""
    import json

    import hashlib

    path = out / "meta.json"
    # the data's own bytes: a changed file under the same --out would mix old and new conversations
    data = hashlib.sha256(Path(args.data).read_bytes()).hexdigest()
    want = {"model": args.model, "judge_model": args.judge_model or args.model, "person": args.person,
            "data_sha256": data}
    try:
        have = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        runner.write_json(path, want)
        return
    except (ValueError, UnicodeDecodeError):
        raise runner.BenchError(f"{path} is not valid JSON. Delete it (the answers cached next to it stay) "
                                "to keep going with this folder, or pass another --out.") from None
    if isinstance(have, dict) and have != want and {**have, "data_sha256": data} == want:
        raise runner.BenchError(f"{args.data} is not the data file this folder's run was made from (its contents "
                                f"changed, or it is another file): the cached workspaces in {out} hold the old "
                                "conversations. Pass another --out, or delete the folder to start again.")
    if have != want:
        raise runner.BenchError(f"{path} says this folder holds a run with {have}, not {want}. Pass another "
                                "--out, or delete the folder to start again.")


def redact(url: str) -> str:
    from heartcompass.store.credentials import redact as hide

    return hide(url)


def conversation(args, folder: Path, sample, tag: str, answers, grades, progress) -> list[dict]:
    """One conversation's stages (each skipped when already done), then its rows."""
    from heartcompass.llm import providers as llm

    folder.mkdir(exist_ok=True)
    runner.refuse_link(folder)
    progress.show(f"{tag}: workspace")
    ws, person = runner.workspace(folder, sample)
    added = runner.import_conversation(ws, person, folder, sample)
    progress.show(f"{tag}: imported {sum(len(s.turns) for s in sample.sessions)} messages ({added} new)", done=True)
    settings = llm.settings(ws)
    stage_path = folder / "stage.json"
    stage = read_stage(stage_path)
    if stage.get("garden", {}).get("status") not in GARDENED:
        requests = [0]

        def tick():
            requests[0] += 1
            progress.show(f"{tag}: gardening, request {requests[0]}", count=(requests[0], 100))  # a line per 10

        progress.show(f"{tag}: gardening")
        stage["garden"] = runner.garden(ws, person, settings, tick)
        runner.write_json(stage_path, stage)
    g = stage["garden"]
    if g["status"] not in GARDENED:  # answers from half a memory would be cached as if it were whole
        raise runner.BenchError(f"{sample.sample_id}: the gardener {g['status']}: {g['message']} Run the same "
                                "command again to retry (what it kept stays).")
    progress.show(f"{tag}: garden {g['status']}: {g['entries']} entries, +{g['events_added']} events, memory "
                  f"{g['memory_tokens']} tokens; lines {g.get('kept', 0)} kept, {g.get('refused', 0)} refused, "
                  f"{g.get('asked', 0)} asked", done=True)
    questions = sample.questions[:args.questions]
    answer_with = llm.make_chat_model(ws, _steady(settings))
    judge_settings = _steady(llm.settings(ws, args.judge_model or args.model))
    judge_with = llm.make_chat_model(ws, judge_settings) if args.judge_model else answer_with
    jobs = [(q, side) for q in questions for side in score.SIDES
            if not grades.get(sample.sample_id, q.index, side)]
    counter = itertools.count(len(questions) * 2 - len(jobs) + 1)

    def one(q, side):
        rec = answers.get(sample.sample_id, q.index, side)
        if rec is None:
            start = time.perf_counter()
            messages = (runner.heartcompass_messages(ws, person, sample, q.question) if side == "heartcompass"
                        else runner.full_context_messages(ws, sample, q.question))
            built = time.perf_counter() - start
            rec = {"sample": sample.sample_id, "q": q.index, "side": side, **runner.ask(answer_with, settings,
                                                                                        messages),
                   "build_s": round(built, 3)}
            answers.add(rec)
        grade(ws, judge_with, judge_settings, grades, sample, q, side, rec["answer"])
        total, now = len(questions) * 2, next(counter)  # next() is atomic: answers come from several threads
        progress.show(f"{tag}: {now}/{total} answered and graded (both sides)",
                      count=(now, total))

    if jobs:
        pool = ThreadPoolExecutor(args.workers)
        try:
            futures = [pool.submit(one, q, side) for q, side in jobs]
            finished, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for f in finished:
                f.result()  # the first error stops the run
        except KeyboardInterrupt:  # said at once: the requests under way may take a while to finish
            progress.show(f"{tag}: stopping once the questions under way are answered", done=True)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        progress.show(f"{tag}: {len(questions)} questions done", done=True)
    return [row(sample, q, answers, grades) for q in questions]


def _steady(settings):
    """Answers and grades at temperature 0: a rerun asks the same."""
    import dataclasses

    return dataclasses.replace(settings, temperature=0.0)


def grade(ws, judge, settings, grades, sample, q, side: str, answer: str) -> None:
    if grades.get(sample.sample_id, q.index, side):
        return
    messages = runner.judge_messages(ws, q.question, q.answer, answer)
    for _ in range(2):  # once more when it gave no label
        said = runner.ask(judge, settings, messages)["answer"]
        label = score.label_of(said)
        if label:
            break
    grades.add({"sample": sample.sample_id, "q": q.index, "side": side, "label": label or "WRONG",
                "unlabelled": label is None, "judge": said})


def row(sample, q, answers, grades) -> dict:
    out = {"sample": sample.sample_id, "q": q.index, "question": q.question, "gold": q.answer,
           "category": q.category, "category_name": CATEGORIES[q.category], "side": q.side, "others": q.others,
           "evidence": q.evidence}
    for side in score.SIDES:
        rec, g = answers.get(sample.sample_id, q.index, side), grades.get(sample.sample_id, q.index, side)
        if rec and g:
            out[side] = {k: rec[k] for k in ("answer", "prompt_tokens", "prompt_tokens_from", "prompt_tokens_estimate",
                                             "latency_s", "build_s") if k in rec} | {
                "label": g["label"], "J": int(g["label"] == "CORRECT"), "f1": round(score.f1(rec["answer"],
                                                                                              q.answer), 4),
                "judge": g["judge"]} | ({"unlabelled": True} if g.get("unlabelled") else {})
    return out


def read_stage(path: Path) -> dict:
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (FileNotFoundError, ValueError, UnicodeDecodeError):
        return {}


if __name__ == "__main__":
    sys.exit(main())
