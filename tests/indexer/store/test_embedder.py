"""The bundled embedding model: offline, verified, order-preserving."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from indexer.store.embedder import DEFAULT_MODEL, Embedder, assemble_default_model


def test_batches_by_length_but_returns_input_order(models_dir: Path) -> None:
    embedder = Embedder(models_dir)
    texts = ['fn main() { println!("hello"); } ' * 40, "Otters hold hands.", "A medium sentence about rivers and fish."]
    together = embedder.embed(texts, batch_size=2)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    assert together.shape == (3, embedder.dim)
    assert np.allclose(together, alone, atol=1e-3)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-3)


def test_a_tampered_model_file_is_replaced_from_the_verified_source(models_dir: Path) -> None:
    folder = assemble_default_model(models_dir)
    tokenizer = folder / "tokenizer_config.json"
    tokenizer.write_text(tokenizer.read_text().replace("256", "999"))
    assert assemble_default_model(models_dir) == models_dir / DEFAULT_MODEL
    assert '"max_length": 256' in tokenizer.read_text()


def test_it_says_what_it_runs_on(models_dir: Path) -> None:
    import onnxruntime

    providers = Embedder(models_dir).providers
    assert providers and set(providers) <= set(onnxruntime.get_available_providers())
    assert providers[-1] == "CPUExecutionProvider" or "CUDAExecutionProvider" in providers, "CPU unless a GPU is there"
