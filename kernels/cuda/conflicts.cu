// tessel-kernels: a bank-conflict microkernel (the function body; tessel_kernels::micro declares
// the tensors, the copy and the signature (b32* out, int reps)). One warp fills a 32x32 b32 tile
// row by row (tensor::tile: the tile layout), then repeats one shared-memory access: the copy
// copy::access moves one vector per lane, tensor::sA is the tile partitioned by it, (lane, vector,
// step, ...), and step `it` of the loop is its step it % STEPS. With k::STORE each step first
// stores its vectors (distinct words: (1 << 20) + lane * width + e), then all are read back.
// Small and single-purpose so that Nsight Compute can count its wavefronts.
  __shared__ __align__(16) b32 smem[k::SMEM_SIZE];
  const int lane = threadIdx.x;
  auto tile = tensor::tile(smem);
  for (int r = 0; r < 32; ++r) tile(r, lane) = (b32)(r * 32 + lane + 1);
  __syncwarp();
  auto sA = tensor::sA(smem)(lane, _, _, 0, 0);  // this lane's vector at every step
  const int steps = (int)sA.extent<1>();
  auto v = tensor::v();                           // one vector in registers
  if (k::STORE) {
    for (int e = 0; e < (int)v.size(); ++e) v[e] = (b32)((1 << 20) + lane * (int)v.size() + e);
    for (int it = 0; it < reps; ++it) tessel::copy(copy::access{}, v.tensor(), sA(_, it % steps));
    __syncwarp();
  }
  b32 acc = 0;
  for (int it = 0; it < reps; ++it) {
    tessel::copy(copy::access{}, sA(_, it % steps), v.tensor());
    for (int e = 0; e < (int)v.size(); ++e) acc += v[e];
  }
  out[lane] = acc;
