"""The fake Ollama server lives in the product (``eval/fake_ollama.py``: ``officeqa eval --generator fake``
starts it); tests import it from here under its old name."""

from eval.fake_ollama import CREATED_AT, DEFAULT_MODEL, FakeOllama, ModelSpec, Reply

__all__ = ["CREATED_AT", "DEFAULT_MODEL", "FakeOllama", "ModelSpec", "Reply"]
