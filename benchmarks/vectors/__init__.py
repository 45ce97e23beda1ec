"""What the vectors cost, each run as `python -m benchmarks.vectors.<name>`: `passages` (vectors per
page and word pieces read: passages, a vector per paragraph, flat chunks), `embedding` (throughput by
batch size and ONNX threads) and `paragraph_vectors` (what a vector per paragraph adds to embedding).
"""
