// Naive gradient magnitude of a volume by central differences, one thread
// per voxel in 16x16x4 blocks; the volume's faces take one-sided
// differences.
#include "bench_common.h"

__global__ void grad3d(int nx, int ny, int nz, const float *v, float *g) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  int xl = x > 0 ? x - 1 : x, xr = x < nx - 1 ? x + 1 : x;
  int yl = y > 0 ? y - 1 : y, yr = y < ny - 1 ? y + 1 : y;
  int zl = z > 0 ? z - 1 : z, zr = z < nz - 1 ? z + 1 : z;
  long plane = (long)nx * ny;
  float dx = (v[z * plane + (long)y * nx + xr] - v[z * plane + (long)y * nx + xl]) / (float)(xr - xl);
  float dy = (v[z * plane + (long)yr * nx + x] - v[z * plane + (long)yl * nx + x]) / (float)(yr - yl);
  float dz = (v[zr * plane + (long)y * nx + x] - v[zl * plane + (long)y * nx + x]) / (float)(zr - zl);
  g[z * plane + (long)y * nx + x] = sqrtf(dx * dx + dy * dy + dz * dz);
}

int main(int argc, char **argv) {
  const int nx = 320, ny = 288, nz = 160;
  const size_t cells = (size_t)nx * ny * nz;
  auto v = bench::random_floats(cells, 67);
  float *dv = bench::to_device(v), *dg = bench::device_zeros<float>(cells);
  const dim3 block(16, 16, 4), grid((nx + 15) / 16, (ny + 15) / 16, (nz + 3) / 4);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { grad3d<<<grid, block>>>(nx, ny, nz, dv, dg); });
  std::vector<double> want(cells);
  auto at = [&](int x, int y, int z) { return ((size_t)z * ny + y) * nx + x; };
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        int xl = x > 0 ? x - 1 : x, xr = x < nx - 1 ? x + 1 : x, yl = y > 0 ? y - 1 : y, yr = y < ny - 1 ? y + 1 : y;
        int zl = z > 0 ? z - 1 : z, zr = z < nz - 1 ? z + 1 : z;
        double dx = ((double)v[at(xr, y, z)] - v[at(xl, y, z)]) / (xr - xl);
        double dy = ((double)v[at(x, yr, z)] - v[at(x, yl, z)]) / (yr - yl);
        double dz = ((double)v[at(x, y, zr)] - v[at(x, y, zl)]) / (zr - zl);
        want[at(x, y, z)] = std::sqrt(dx * dx + dy * dy + dz * dz);
      }
  bool ok = bench::all_close(bench::to_host(dg, cells), want, 1e-4, 1e-4);
  return bench::report("grad3d", ok, ms, 12.0 * cells, 8.0 * cells);
}
