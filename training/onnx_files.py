"""ONNX files a browser can load: the graph in one small protobuf, the weights in external-data
chunks that transformers.js fetches one by one.

    writer = ChunkedWriter("onnx/model_q4.onnx")      # model_q4.onnx_data, model_q4.onnx_data_1, …
    tensor = writer.add("w", numpy_array)             # an initializer whose bytes are in a chunk
    ...
    files = writer.finish(model_proto)                 # writes model_q4.onnx; the chunk names

    save_chunked(model_proto, "onnx/model.onnx")      # an in-memory model, moved out tensor by tensor

Why chunks, and their size:
- protobuf cannot serialise a message of 2 GiB or more, so the weights of any model near that size
  must be external data (and `ModelProto.ByteSize()` itself fails past 2 GiB, so it is never called
  on a whole model here);
- transformers.js (src/utils/model-loader.js, getExternalDataChunkNames) fetches
  `<file>_data`, `<file>_data_1`, … `<file>_data_{n-1}`, n being
  `config.json → transformers.js_config.use_external_data_format[<file>]` (at most 100), each into one
  Uint8Array, and hands them to ONNX Runtime Web as `externalData` entries whose `path` is the chunk's
  name — the `location` every tensor here names;
- Node's fs.readFile refuses files of 2 GiB or more (kIoMaxLength = 2^31 - 1), and ONNX Runtime Web
  streams any file of 1 GB or more into a preallocated buffer instead of reading it whole
  (lib/wasm/wasm-utils-load-file.ts), a browser's largest single allocation being well below its
  memory.
So a chunk holds at most CHUNK_BYTES = 1 GiB: one contiguous allocation of that size is what every
one of them handles on its ordinary path. A tensor never spans two chunks (ONNX external data is one
range of one file); a single tensor over CHUNK_BYTES gets a chunk of its own, and one of 2 GiB or
more cannot be loaded by anything above and is refused (TensorTooLarge).
Each tensor starts at a multiple of ALIGN bytes (page-aligned: ONNX Runtime memory-maps aligned
external data instead of copying it).
"""
from __future__ import annotations

import os
from typing import Iterator

CHUNK_BYTES = 1 << 30
MAX_TENSOR_BYTES = (1 << 31) - 1
ALIGN = 4096
# Tensors smaller than this stay inside the protobuf (shapes, scalars, small constants).
INLINE_BYTES = 1024


class TensorTooLarge(ValueError):
    pass


def chunk_name(model_file: str, index: int) -> str:
    """transformers.js's name for chunk `index` of `model_file` (getExternalDataChunkNames)."""
    return f"{model_file}_data" + ("" if index == 0 else f"_{index}")


def chunk_files(onnx_path: str) -> list[str]:
    """The chunk files that exist beside onnx_path, in order (names only)."""
    folder, base = os.path.split(onnx_path)
    names = []
    while os.path.isfile(os.path.join(folder, chunk_name(base, len(names)))):
        names.append(chunk_name(base, len(names)))
    return names


def remove_model(onnx_path: str) -> None:
    """Removes onnx_path and every chunk of it."""
    folder, base = os.path.split(onnx_path)
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        if name == base or name.startswith(base + "_data"):
            os.remove(os.path.join(folder, name))


def model_bytes(onnx_path: str) -> int:
    """The model file and its chunks, in bytes."""
    folder = os.path.dirname(onnx_path)
    return os.path.getsize(onnx_path) + sum(
        os.path.getsize(os.path.join(folder, name)) for name in chunk_files(onnx_path))


class ChunkedWriter:
    """Streams tensors into `<model file>_data[_i]` chunks, each at most chunk_bytes."""

    def __init__(self, onnx_path: str, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.path = onnx_path
        self.folder, self.base = os.path.split(onnx_path)
        self.chunk_bytes = chunk_bytes
        self.files: list[str] = []
        self._handle = None
        self._offset = 0
        self.tensor_bytes = 0
        remove_model(onnx_path)

    def _next_chunk(self) -> None:
        if self._handle is not None:
            self._handle.close()
        name = chunk_name(self.base, len(self.files))
        self.files.append(name)
        self._handle = open(os.path.join(self.folder, name), "wb")
        self._offset = 0

    def write_bytes(self, tensor, data) -> None:
        """Writes `data` (bytes-like) as `tensor`'s external data (the TensorProto is updated)."""
        from onnx import TensorProto

        view = memoryview(data).cast("B")
        size = view.nbytes
        if size > MAX_TENSOR_BYTES:
            raise TensorTooLarge(f"tensor {tensor.name} is {size:,} bytes; no browser or Node "
                                 f"reader takes a single file of 2 GiB or more")
        pad = (-self._offset) % ALIGN
        if self._handle is None or (self._offset > 0 and self._offset + pad + size > self.chunk_bytes):
            self._next_chunk()
            pad = 0
        if pad:
            self._handle.write(b"\0" * pad)
            self._offset += pad
        self._handle.write(view)
        for field in ("raw_data", "float_data", "int32_data", "int64_data", "double_data",
                      "uint64_data", "string_data"):
            tensor.ClearField(field)
        del tensor.external_data[:]
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.files[-1]), ("offset", str(self._offset)),
                           ("length", str(size))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
        self._offset += size
        self.tensor_bytes += size

    def add(self, name: str, array):
        """An initializer named `name` holding the numpy array, its bytes in a chunk."""
        import numpy as np
        from onnx import TensorProto, helper

        array = np.ascontiguousarray(array)
        tensor = TensorProto()
        tensor.name = name
        tensor.data_type = helper.np_dtype_to_tensor_dtype(array.dtype)
        tensor.dims.extend(array.shape)
        if array.nbytes < INLINE_BYTES:
            tensor.raw_data = array.tobytes()
        else:
            self.write_bytes(tensor, array.reshape(-1).view(np.uint8))
        return tensor

    def finish(self, model) -> list[str]:
        """Closes the last chunk and writes the graph protobuf; the chunk names."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        with open(self.path, "wb") as handle:
            handle.write(model.SerializeToString())
        return list(self.files)


def _tensors(graph) -> Iterator:
    """Every TensorProto of a graph: initializers and node attributes, subgraphs included."""
    from onnx import AttributeProto

    yield from graph.initializer
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == AttributeProto.TENSOR:
                yield attr.t
            elif attr.type == AttributeProto.TENSORS:
                yield from attr.tensors
            elif attr.type == AttributeProto.GRAPH:
                yield from _tensors(attr.g)
            elif attr.type == AttributeProto.GRAPHS:
                for sub in attr.graphs:
                    yield from _tensors(sub)


def _external_info(tensor) -> dict:
    return {entry.key: entry.value for entry in tensor.external_data}


def tensor_bytes(model) -> int:
    """The bytes of every tensor's data (in memory or external), without serialising the model."""
    import numpy as np
    from onnx import TensorProto, helper

    total = 0
    for tensor in _tensors(model.graph):
        if tensor.data_location == TensorProto.EXTERNAL:
            total += int(_external_info(tensor).get("length", 0))
        elif tensor.raw_data:
            total += len(tensor.raw_data)
        else:
            count = int(np.prod(tensor.dims)) if tensor.dims else 1
            if tensor.data_type != TensorProto.STRING:
                total += count * np.dtype(helper.tensor_dtype_to_np_dtype(tensor.data_type)).itemsize
    return total


def save_chunked(model, onnx_path: str, source_dir: str | None = None,
                 chunk_bytes: int = CHUNK_BYTES) -> list[str]:
    """Writes an in-memory model with its weights in chunks; the chunk names ([] when none).

    Tensors whose data is in memory move to the chunks one at a time (each freed as it goes); tensors
    that are already external (a model loaded with load_external_data=False) are copied from their
    file under source_dir. The model proto is modified in place."""
    from onnx import TensorProto, numpy_helper

    writer = ChunkedWriter(onnx_path, chunk_bytes)
    for tensor in _tensors(model.graph):
        if tensor.data_location == TensorProto.EXTERNAL:
            if source_dir is None:
                raise ValueError(f"tensor {tensor.name} is external; source_dir is needed")
            info = _external_info(tensor)
            with open(os.path.join(source_dir, info["location"]), "rb") as handle:
                handle.seek(int(info.get("offset", 0)))
                length = info.get("length")
                data = handle.read(int(length)) if length is not None else handle.read()
            writer.write_bytes(tensor, data)
            del data
        elif tensor.raw_data:
            if len(tensor.raw_data) >= INLINE_BYTES:
                writer.write_bytes(tensor, tensor.raw_data)
        elif tensor.data_type != TensorProto.STRING:
            array = numpy_helper.to_array(tensor)
            if array.nbytes >= INLINE_BYTES:
                writer.write_bytes(tensor, array.reshape(-1).view("uint8"))
    return writer.finish(model)
