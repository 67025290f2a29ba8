# Checkpoints torch.save could never write, made without torch (tests/cli/torch_models.sh): a
# fake torch module gives the globals their names, a Pickler subclass writes the persistent ids.
import collections, io, pickle, struct, sys, types, zipfile

torch = types.ModuleType("torch")
utils = types.ModuleType("torch._utils")
class FloatStorage: pass
FloatStorage.__module__ = "torch"
torch.FloatStorage = FloatStorage
def _rebuild_tensor_v2(*a): pass
_rebuild_tensor_v2.__module__ = "torch._utils"
utils._rebuild_tensor_v2 = _rebuild_tensor_v2
torch._utils = utils
sys.modules["torch"] = torch
sys.modules["torch._utils"] = utils

class Storage:
    def __init__(self, key, numel): self.key, self.numel = key, numel
class Tensor:
    def __init__(self, storage, offset, size, stride): self.a = (storage, offset, size, stride, False, collections.OrderedDict())
    def __reduce__(self): return (_rebuild_tensor_v2, self.a)

class P(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage): return ("storage", FloatStorage, obj.key, "cpu", obj.numel)
        return None

def data_pkl(sd):
    b = io.BytesIO()
    P(b, protocol=2).dump(sd)
    return b.getvalue()

def write_zip(path, sd, storages):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", data_pkl(sd))
        for key, data in storages.items(): z.writestr(f"archive/data/{key}", data)

s = Storage("0", 4)
# 1. a broadcast view: 2^40 elements of a 4-value storage
write_zip("broadcast.bin", collections.OrderedDict([("w", Tensor(s, 0, (1 << 40,), (0,)))]), {"0": b"\0" * 16})
# 2. a storage that claims 2^60 values
big = Storage("0", 1 << 60)
write_zip("huge_storage.bin", collections.OrderedDict([("w", Tensor(big, 0, (4,), (1,)))]), {"0": b"\0" * 16})
# 3. a view past its storage
write_zip("past_end.bin", collections.OrderedDict([("w", Tensor(s, 2, (4,), (1,)))]), {"0": b"\0" * 16})
# 4. sizes that overflow: (2^33, 2^33) with strides (2^33, 1)
write_zip("overflow.bin", collections.OrderedDict([("w", Tensor(s, 0, (1 << 33, 1 << 33), (1 << 33, 1)))]), {"0": b"\0" * 16})
# 5. a storage entry shorter than declared
write_zip("short_entry.bin", collections.OrderedDict([("w", Tensor(s, 0, (4,), (1,)))]), {"0": b"\0" * 8})
# 6. (issue 49) a storage offset of 2^61 with strides near 2^63: offset + 2 * stride wraps past
#    2^64 to 0, inside the 16-value storage, and the reader once crashed (SIGSEGV).
wrap_stride = (1 << 63) - (1 << 60)
write_zip("stride_wrap.bin", collections.OrderedDict([("w", Tensor(Storage("0", 16), 1 << 61, (3,), (wrap_stride,)))]),
          {"0": b"\0" * 64})

# 7. (issue 49) torch.save's legacy format: a view whose offset plus the tensor's storage
#    offset wraps to 2^64 - 4096; the reader once read 4096 values before its storage (exit 0).
class View:
    def __init__(self, root, key, offset, size): self.root, self.key, self.offset, self.size = root, key, offset, size
class LegacyP(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, View):
            return ("storage", FloatStorage, obj.root.key, "cpu", obj.root.numel, (obj.key, obj.offset, obj.size))
        if isinstance(obj, Storage): return ("storage", FloatStorage, obj.key, "cpu", obj.numel, None)
        return None

def write_legacy(path, sd, storages):
    b = io.BytesIO()
    pickle.dump(0x1950a86a20f9469cfc6c, b, protocol=2)
    pickle.dump(1001, b, protocol=2)
    pickle.dump({"protocol_version": 1001, "little_endian": True, "type_sizes": {"int": 4}}, b, protocol=2)
    LegacyP(b, protocol=2).dump(sd)
    pickle.dump(list(storages), b, protocol=2)
    for data in storages.values():
        b.write(struct.pack("<q", len(data) // 4))
        b.write(data)
    with open(path, "wb") as f: f.write(b.getvalue())

root = Storage("0", 1024)
write_legacy("legacy_view_wrap.bin",
             collections.OrderedDict([("w", Tensor(View(root, "1", (1 << 63) - 1, 8), (1 << 63) - 4095, (5000,), (1,)))]),
             {"0": b"\0" * 4096})
# 8. the same view, in bounds, with a tensor that reaches past the view (not past the root).
write_legacy("legacy_past_view.bin",
             collections.OrderedDict([("w", Tensor(View(root, "1", 8, 8), 4, (8,), (1,)))]), {"0": b"\0" * 4096})
# 9. a well-formed legacy checkpoint with a view, which must read: w = root[8:16] as [2,4].
write_legacy("legacy_view_ok.bin",
             collections.OrderedDict([("w", Tensor(View(root, "1", 8, 8), 0, (2, 4), (4, 1)))]),
             {"0": struct.pack("<1024f", *range(1024))})
