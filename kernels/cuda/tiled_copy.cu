// tessel-kernels: the tiled copy and the transposes through shared memory (the function body;
// tessel_kernels::tiled declares the tensors and copies, and the signature
// (const ty::T* src, ty::T* dst)). Every tensor is a partition of every thread at once, sliced
// here at this thread and this block's tile:
//   tensor::gA, tensor::gB   the source / destination tiles through the load / store copies
//   tensor::cA_m, cA_n, cB_m, cB_n   the coordinates (row, column) of their elements
//   tensor::cT_m, cT_n       the coordinates of the tile's elements
//   tensor::sW, tensor::sR   the shared tile through the write / read copies
//   tensor::rA, tensor::rB   registers; tensor::rW, tensor::rS: the same registers in the value
//                            order of the write / store copy (the register permutation)
  __shared__ __align__(16) ty::T smem[k::SMEM_SIZE];
  const int t = threadIdx.x;
  const int tile = layout::raster(blockIdx.x);  // the tile of this block (the block order)
  // The tile lies inside the matrix when its last element does; otherwise the global copies are
  // predicated on the coordinates of each vector.
  const bool full = tensor::cT_m()(k::TM - 1, k::TN - 1, tile) < k::M && tensor::cT_n()(k::TM - 1, k::TN - 1, tile) < k::N;
  // 1. global -> registers, in the load copy's vectors.
  auto gA = tensor::gA(src)(t, _, _, _, _, tile);
  auto rA = tensor::rA();
  if (full) {
    tessel::copy(copy::load{}, gA, rA.tensor());
  } else {
    rA.fill((ty::T)0);
    auto in = tessel::elem_less(tensor::cA_m()(t, _, _, _, _, tile), k::M, tensor::cA_n()(t, _, _, _, _, tile), k::N);
    tessel::copy_if(copy::load{}, in, gA, rA.tensor());
  }
  // 2. registers -> shared tile, in the write copy's vectors.
  tessel::copy(copy::write{}, tensor::rW(rA), tensor::sW(smem)(t, _, _, _, _));
  __syncthreads();
  // 3. shared tile -> registers through the read copy (the store partition).
  auto rB = tensor::rB();
  tessel::copy(copy::read{}, tensor::sR(smem)(t, _, _, _, _), rB.tensor());
  // 4. registers -> global, in the store copy's vectors.
  auto gB = tensor::gB(dst)(t, _, _, _, _, tile);
  if (full) {
    tessel::copy(copy::store{}, tensor::rS(rB), gB);
  } else {
    auto in = tessel::elem_less(tensor::cB_m()(t, _, _, _, _, tile), k::M, tensor::cB_n()(t, _, _, _, _, tile), k::N);
    tessel::copy_if(copy::store{}, in, tensor::rS(rB), gB);
  }
