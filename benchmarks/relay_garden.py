"""A workspace for gardening one LoCoMo conversation by hand through
benchmarks/relay_model.py (a person plays the capable model):

    python benchmarks/relay_garden.py CONVERSATION.json OUT [--sessions 6] [--port 8771] [--person a|b]
    python benchmarks/relay_model.py OUT/requests 8771 &
    OPENAI_API_KEY=dummy heartcompass --workspace OUT/workspace garden
    # answer each OUT/requests/NNNN.request.json with NNNN.answer.json until the garden ends

CONVERSATION.json is one LoCoMo conversation: a sample of locomo10.json
({"conversation": {...}, "qa": [...]}) or the conversation object alone
(speaker_a, speaker_b, session_N, session_N_date_time), as the v2 files
are. Its first --sessions sessions are written as a WhatsApp export and
brought in by `heartcompass import`, as benchmarks/locomo.py does; the
workspace's model is the relay on --port, with room to answer slowly."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import locomo_run as runner  # noqa: E402
from locomo_data import DataError, load  # noqa: E402

ANSWER_SECONDS = 3600  # llm.timeout: a person reads the request and writes the answer


def first_sessions(raw: dict, sessions: int) -> dict:
    """The sample with only its first `sessions` sessions (by number), in locomo10.json's shape."""
    conv = raw.get("conversation", raw)
    if not isinstance(conv, dict):
        raise DataError("expected a LoCoMo conversation: an object with speaker_a, speaker_b and session_N lists.")
    keep = {k: v for k, v in conv.items()
            if not re.fullmatch(r"session_\d+(_date_time)?", k) or int(k.split("_")[1]) <= sessions}
    return {"sample_id": str(raw.get("sample_id") or "conversation"), "conversation": keep,
            "qa": raw.get("qa") if isinstance(raw.get("qa"), list) else []}


def build(source: Path, out: Path, sessions: int, port: int, person_is: str = "a") -> tuple[Path, int]:
    """OUT/workspace with the conversation imported and the relay as its model. Returns it and the messages added."""
    from heartcompass.store.config_edit import set_config

    try:
        raw = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{source}: cannot read it as a JSON conversation ({exc}).") from None
    if not isinstance(raw, dict):
        raise DataError(f"{source}: expected one conversation (an object), as the locomo10_v2 files are.")
    out.mkdir(parents=True, exist_ok=True)
    trimmed = out / "conversation.json"
    runner.write_json(trimmed, first_sessions(raw, sessions))
    sample = load(trimmed, person_is)[0]
    ws, person = runner.workspace(out, sample)
    added = runner.import_conversation(ws, person, out, sample)
    for key, value in (("llm.base_url", f"http://127.0.0.1:{port}/v1"), ("llm.model", "relay"),
                       ("llm.timeout", str(ANSWER_SECONDS))):
        set_config(ws, key, value)
    return ws.root, added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("conversation", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--port", type=int, default=8771)
    parser.add_argument("--person", choices=("a", "b"), default="a", help="which speaker is the person")
    args = parser.parse_args()
    try:
        root, added = build(args.conversation, args.out, args.sessions, args.port, args.person)
    except (DataError, runner.BenchError) as exc:
        sys.exit(str(exc))
    print(f"{root}: {added} messages imported; the model is the relay on 127.0.0.1:{args.port}.\n"
          f"Next: python {HERE / 'relay_model.py'} {args.out / 'requests'} {args.port}\n"
          f"      OPENAI_API_KEY=dummy heartcompass --workspace {root} garden")


if __name__ == "__main__":
    main()
