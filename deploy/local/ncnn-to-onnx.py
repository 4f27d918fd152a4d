"""Writes an ONNX graph of Real-ESRGAN's compact x4 model from its ncnn files (same weights), so the
local engine can run it on onnxruntime-node. Built with the onnx package's helpers, never by hand.

    python ncnn-to-onnx.py <model>.param <model>.bin <model>.onnx

The graph: input "input" float32 NCHW [1, 3, h, w] in 0..1; output "output" [1, 3, 4h, 4w]. Layers as
in the .param file: Convolution (3x3, pad 1) + PReLU chain, PixelShuffle (PyTorch order, which is
ONNX DepthToSpace mode CRD), plus the input upscaled by nearest neighbour.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FP16_TAG = 0x01306B47


def convert(param_path: str, bin_path: str, out_path: str) -> None:
    lines = open(param_path, encoding="utf8").read().split("\n")[2:]
    data = open(bin_path, "rb").read()
    offset = 0

    def take(count: int, dtype) -> np.ndarray:
        nonlocal offset
        values = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
        offset += values.nbytes
        return values

    nodes, inits = [], []
    blob = {"input.1_splitncnn_0": "input", "input.1_splitncnn_1": "input"}
    in_channels = 3
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        kind, name = parts[0], parts[1]
        n_in, n_out = int(parts[2]), int(parts[3])
        inputs = parts[4 : 4 + n_in]
        outputs = parts[4 + n_in : 4 + n_in + n_out]
        args = dict(a.split("=", 1) for a in parts[4 + n_in + n_out :])
        src = [blob.get(i, i) for i in inputs]
        if kind in ("Input", "Split"):
            continue
        if kind == "Convolution":
            out = int(args["0"])
            kernel = int(args["1"])
            count = out * in_channels * kernel * kernel
            if kernel != 3 or int(args.get("6", 0)) != count or args.get("5") != "1":
                raise ValueError(f"unexpected convolution: {line}")
            tag = int(take(1, "<u4")[0])
            if tag == FP16_TAG:
                weights = take(count, "<f2").astype(np.float32)
                offset += (-count * 2) % 4  # ncnn pads fp16 blobs to 4 bytes
            elif tag == 0:
                weights = take(count, "<f4").astype(np.float32)
            else:
                raise ValueError(f"unsupported ncnn weight tag {tag:#x}")
            bias = take(out, "<f4").astype(np.float32)
            # ncnn stores convolution weights as out, in, kh, kw: ONNX's OIHW
            inits.append(numpy_helper.from_array(weights.reshape(out, in_channels, kernel, kernel), f"{name}.w"))
            inits.append(numpy_helper.from_array(bias, f"{name}.b"))
            nodes.append(
                helper.make_node(
                    "Conv", [src[0], f"{name}.w", f"{name}.b"], outputs, name=name,
                    kernel_shape=[kernel, kernel], pads=[1, 1, 1, 1],
                )
            )
            in_channels = out
        elif kind == "PReLU":
            slopes = take(int(args["0"]), "<f4").astype(np.float32)
            inits.append(numpy_helper.from_array(slopes.reshape(-1, 1, 1), f"{name}.slope"))
            nodes.append(helper.make_node("PRelu", [src[0], f"{name}.slope"], outputs, name=name))
        elif kind == "PixelShuffle":
            nodes.append(
                helper.make_node("DepthToSpace", src, outputs, name=name, blocksize=int(args["0"]), mode="CRD")
            )
        elif kind == "Interp":
            if args.get("0") != "1":
                raise ValueError(f"only nearest interpolation is expected: {line}")
            scale = float(args["1"])
            inits.append(numpy_helper.from_array(np.array([1, 1, scale, scale], np.float32), f"{name}.scales"))
            nodes.append(
                helper.make_node(
                    "Resize", [src[0], "", f"{name}.scales"], outputs, name=name, mode="nearest",
                    coordinate_transformation_mode="asymmetric", nearest_mode="floor",
                )
            )
        elif kind == "BinaryOp":
            if args.get("0", "0") != "0":
                raise ValueError(f"only addition is expected: {line}")
            nodes.append(helper.make_node("Add", src, outputs, name=name))
        else:
            raise ValueError(f"unexpected ncnn layer {kind}")
    if offset != len(data):
        raise ValueError(f"read {offset} of {len(data)} weight bytes: the .param does not match the .bin")

    graph = helper.make_graph(
        nodes,
        "realesr-compact",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, "h", "w"])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 3, "oh", "ow"])],
        inits,
    )
    # IR 8 / opset 17: read by every onnxruntime since 1.13
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    model.producer_name = "studio ncnn-to-onnx"
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, out_path)


if __name__ == "__main__":
    convert(*sys.argv[1:4])
