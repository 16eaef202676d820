"""bin/fim --hf-model on a tiny randomly initialised GPT-2 with FIM special tokens that the test builds in a
temporary folder (a character-level tokenizer, a few kB of weights): the real loading, prompting, greedy
generation and the study's post-processing run; nothing is downloaded."""
import json
import os

import pytest
from conftest import run_fim

from fim.records import first_code_line

FIM = ["<fim_prefix>", "<fim_suffix>", "<fim_middle>"]
EOT = "<|endoftext|>"


@pytest.mark.parametrize("generated, language, expected", [
    ("x = 1;\ny = 2;", "java", "x = 1;"),
    ("// a comment\n    return x;<|endoftext|>", "java", "    return x;"),
    ("\n\n  foo(a);  \n", "java", "  foo(a);"),
    ("/* c */\n* more\nbar();", "java", "bar();"),
    ("# note\nreturn y<|endoftext|>junk", "python", "return yjunk"),
    ("<|endoftext|>", "python", ""),
    ("# only a comment", "python", ""),
])
def test_first_code_line(generated, language, expected):
    assert first_code_line(generated, language) == expected


def build_tiny_model(folder, fim_tokens=True):
    """A character-level tokenizer (with the FIM tokens as special tokens) and a 1-layer GPT-2 of width 8."""
    transformers = pytest.importorskip("transformers", reason="transformers is not installed (pip install -e '.[fim]')")
    pytest.importorskip("torch", reason="torch is not installed (pip install -e '.[fim]')")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    specials = [EOT] + (FIM if fim_tokens else [])
    chars = [chr(c) for c in range(32, 127)] + ["\n", "\t"]
    vocab = {tok: i for i, tok in enumerate(specials + chars)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token=EOT))
    tok.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tok.decoder = decoders.Fuse()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOT, unk_token=EOT,
                                                additional_special_tokens=FIM if fim_tokens else [])
    fast.save_pretrained(folder)
    import torch
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(vocab), n_positions=256, n_embd=8, n_layer=1, n_head=1,
                                     bos_token_id=0, eos_token_id=0)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    return vocab


@pytest.fixture
def tasks_file(tmp_path):
    text = "class A {\n    int f(int x) {\n        return x + 1;\n    }\n}\n"
    lines = text.split("\n")
    records = []
    for i in (1, 2):
        prefix = "\n".join(lines[:i]) + "\n"
        records.append({"prefix": prefix, "middle": lines[i], "suffix": text[len(prefix) + len(lines[i]):],
                        "path": "A.java", "line": i + 1})
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(records))
    return path, records


def test_tiny_fim_model_end_to_end(tmp_path, tasks_file, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    folder = tmp_path / "tiny-fim"
    build_tiny_model(folder)
    assert sum(f.stat().st_size for f in folder.iterdir()) < 200_000
    from fim.hf import HfPredictor
    from fim.tasks import FimTask
    predictor = HfPredictor(folder, max_new_tokens=12)
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    task = FimTask(**json.loads(tasks_file[0].read_text())[0])
    ids = predictor.prompt_ids(task)
    vocab = predictor.tokenizer.get_vocab()
    assert ids[0] == vocab["<fim_prefix>"] and ids[-1] == vocab["<fim_middle>"]
    assert (predictor.tokenizer.decode(ids)
            == "<fim_prefix>" + task.prefix + "<fim_suffix>" + task.suffix + "<fim_middle>")
    raw = predictor.generate(task)
    assert predictor.generate(task) == raw          # greedy: the same every time
    assert any(token in raw for token in FIM)     # the random model emits FIM tokens: the fills must not
    code, out, err = run_fim(["--hf-model", str(folder), "--max-new-tokens", "12", "--quiet", str(tasks_file[0])])
    assert code == 0, err
    records = json.loads(out)
    assert [r["middle"] for r in records] == [t["middle"] for t in tasks_file[1]]
    assert records[0]["fill"] == first_code_line(raw, "java", (EOT, *FIM))
    for r, t in zip(records, tasks_file[1]):
        assert "\n" not in r["fill"] and r["correct"] == ""
        assert not any(token in r["fill"] for token in (EOT, *FIM))
        assert r["generated_code"] == t["prefix"] + r["fill"] + t["suffix"]
    assert "fim|hf-model:" in err and "greedy" in err


def test_long_prompts_are_cut_to_the_context(tmp_path):
    folder = tmp_path / "tiny-fim"
    build_tiny_model(folder)
    from fim.hf import HfPredictor
    from fim.tasks import FimTask
    predictor = HfPredictor(folder, max_new_tokens=16)
    task = FimTask("a" * 1000 + "\n", "b", "\n" + "c" * 1000)
    ids = predictor.prompt_ids(task)
    assert len(ids) + 16 <= 256
    text = predictor.tokenizer.decode(ids)
    assert text.startswith("<fim_prefix>a") and "a\n<fim_suffix>\nc" in text


def test_a_model_without_fim_tokens_is_one_line_exit_2(tmp_path, tasks_file):
    folder = tmp_path / "plain"
    build_tiny_model(folder, fim_tokens=False)
    code, out, err = run_fim(["--hf-model", str(folder), "--quiet", str(tasks_file[0])])
    assert code == 2 and out == ""
    assert "plain: the tokenizer has no FIM tokens" in err and err.count("\n") == 1
