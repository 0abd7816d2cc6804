# Test app: PyTorch (dynamic cudart, caching allocator: tensors share 2 MB
# segments) running a few elementwise, reduction and matmul kernels.
import torch

torch.manual_seed(0)
a = torch.randn(1 << 16, device="cuda")
b = torch.randn(1 << 16, device="cuda")
c = a * 2.0 + b
d = torch.relu(c).sum()
m = torch.randn(128, 128, device="cuda") @ torch.randn(128, 128, device="cuda")
torch.cuda.synchronize()
print("torch: ok", float(d) > 0, tuple(m.shape))
