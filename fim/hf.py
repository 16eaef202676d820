"""Fill-in-the-middle with a local Hugging Face causal LM that has FIM tokens (as tiny_starcoder does).

The prompt is the study's, `<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>`; generation is greedy;
what comes out goes through the study's post-processing (`fim.records.first_code_line`; the FIM tokens
are removed with the end-of-text ones). Nothing is downloaded: the model and its tokenizer are read from the
folder only (HF_HUB_OFFLINE). transformers and torch are an optional extra (`pip install -e '.[fim]'`;
`make setup` installs it).
"""
from __future__ import annotations

import os
from pathlib import Path

from .records import END_OF_TEXT, first_code_line
from .tasks import FimTask

FIM_TOKENS = ("<fim_prefix>", "<fim_suffix>", "<fim_middle>")
MAX_NEW_TOKENS = 64


class HfError(ValueError):
    """A model folder that cannot be used; the message is one line naming it."""


class HfPredictor:
    def __init__(self, folder: Path, max_new_tokens: int = MAX_NEW_TOKENS):
        os.environ["HF_HUB_OFFLINE"] = "1"          # never reach for the network
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        folder = Path(folder)
        if not folder.is_dir():
            raise HfError(f"{folder}: no such model folder (nothing is downloaded: give a local folder)")
        try:
            import torch
            import transformers
        except ImportError as e:
            raise HfError(f"--hf-model needs transformers and torch ({e.name} is missing): pip install -e '.[fim]'")
        self.torch = torch
        transformers.utils.logging.disable_progress_bar()   # stderr carries one line per problem
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
            vocab = self.tokenizer.get_vocab()
            missing = [t for t in FIM_TOKENS if t not in vocab]
            if missing:
                raise HfError(f"{folder}: the tokenizer has no FIM tokens ({', '.join(missing)} missing)")
            self.model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), local_files_only=True)
        except (OSError, ValueError, KeyError) as e:
            if isinstance(e, HfError):
                raise
            raise HfError(f"{folder}: not a causal language model with its tokenizer "
                          f"({str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
        self.model.eval()
        self.folder = folder
        self.max_new_tokens = max_new_tokens
        config = self.model.config
        self.context = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", 2048)
        # removed from what is generated: end-of-text, and the FIM tokens, which are never code (a small or
        # undertrained model emits them)
        self.end_tokens = tuple(t for t in (*END_OF_TEXT, self.tokenizer.eos_token, *FIM_TOKENS) if t)
        self.name = getattr(config, "_name_or_path", "") or folder.name

    def prompt_ids(self, task: FimTask) -> list[int]:
        """The FIM prompt's token ids, the prefix cut on the left and the suffix on the right so that the
        prompt and the generation fit the model's context."""
        tok = self.tokenizer
        ids = lambda text: tok(text, add_special_tokens=False)["input_ids"]
        pre, suf = ids(task.prefix), ids(task.suffix)
        room = max(self.context - self.max_new_tokens - 3, 2)
        if len(pre) + len(suf) > room:
            keep_suf = min(len(suf), room // 4)
            keep_pre = room - keep_suf
            pre, suf = pre[len(pre) - keep_pre:] if keep_pre else [], suf[:keep_suf]
        p, s, m = (tok.convert_tokens_to_ids(t) for t in FIM_TOKENS)
        return [p] + pre + [s] + suf + [m]

    def generate(self, task: FimTask) -> str:
        torch = self.torch
        ids = torch.tensor([self.prompt_ids(task)])
        with torch.no_grad():
            out = self.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=self.max_new_tokens,
                                      do_sample=False, pad_token_id=self.tokenizer.eos_token_id
                                      if self.tokenizer.eos_token_id is not None else 0)
        return self.tokenizer.decode(out[0, ids.shape[1]:].tolist(), skip_special_tokens=False)

    def predict(self, task: FimTask, language: str) -> str:
        return first_code_line(self.generate(task), language, self.end_tokens)

    def signature(self) -> str:
        import torch
        import transformers
        return (f"fim|hf-model:{self.name}|greedy|max-new-tokens:{self.max_new_tokens}"
                f"|transformers:{transformers.__version__}|torch:{torch.__version__}")
