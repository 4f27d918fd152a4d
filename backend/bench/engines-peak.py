"""Helpers of npm run bench -- engines (run with the onnx venv's python, .tools/onnx).

    engines-peak.py sgemm N REPS       numpy's float32 N x N x N matrix product (OpenBLAS; the caller
                                       pins its threads with OPENBLAS_NUM_THREADS): one JSON line with
                                       the best wall time and the CPU time of that run, in seconds
    engines-peak.py matmul-onnx PATH   writes an ONNX graph of one MatMul of two float32 inputs, so the
                                       bench can time onnxruntime's own sgemm with the SR model's threads
"""

import json
import sys
import time


def sgemm(n: int, reps: int) -> None:
    import numpy as np

    rng = np.random.default_rng(1)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    out = np.empty((n, n), dtype=np.float32)
    np.matmul(a, b, out=out)  # warm-up: threads started, pages touched
    best = (float("inf"), 0.0)
    for _ in range(reps):
        wall, cpu = time.perf_counter(), time.process_time()
        np.matmul(a, b, out=out)
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    print(json.dumps({"n": n, "wall": best[0], "cpu": best[1]}))


def matmul_onnx(path: str) -> None:
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])],
        "sgemm",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, ["m", "k"]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, ["k", "n"]),
        ],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, ["m", "n"])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == "__main__":
    if sys.argv[1] == "sgemm":
        sgemm(int(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1] == "matmul-onnx":
        matmul_onnx(sys.argv[2])
    else:
        raise SystemExit(__doc__)
