// tessel-kernels: the naive transposes, without shared memory (the function body;
// tessel_kernels::tiled declares the tensors and copies, and the signature
// (const ty::T* src, ty::T* dst)). The steps of tiled_copy.cu less the shared tile: each thread
// loads its values of the tile into registers and stores them straight to the destination, the
// store copy having the load copy's threads and values:
//   tensor::gA, tensor::gB   the source / destination tiles through the load / store copies
//   tensor::cA_m, cA_n, cB_m, cB_n   the coordinates (row, column) of their elements
//   tensor::cT_m, cT_n       the coordinates of the tile's elements
//   tensor::rA               registers; tensor::rS: them in the store copy's value order
  const int t = threadIdx.x;
  const int tile = layout::raster(blockIdx.x);  // the tile of this block (the block order)
  // The tile lies inside the matrix when its last element does; otherwise the copies are
  // predicated on the coordinates of each value.
  const bool full = tensor::cT_m()(k::TM - 1, k::TN - 1, tile) < k::M && tensor::cT_n()(k::TM - 1, k::TN - 1, tile) < k::N;
  // 1. global -> registers.
  auto gA = tensor::gA(src)(t, _, _, _, _, tile);
  auto rA = tensor::rA();
  if (full) {
    tessel::copy(copy::load{}, gA, rA.tensor());
  } else {
    rA.fill((ty::T)0);
    auto in = tessel::elem_less(tensor::cA_m()(t, _, _, _, _, tile), k::M, tensor::cA_n()(t, _, _, _, _, tile), k::N);
    tessel::copy_if(copy::load{}, in, gA, rA.tensor());
  }
  // 2. registers -> global.
  auto gB = tensor::gB(dst)(t, _, _, _, _, tile);
  if (full) {
    tessel::copy(copy::store{}, tensor::rS(rA), gB);
  } else {
    auto in = tessel::elem_less(tensor::cB_m()(t, _, _, _, _, tile), k::M, tensor::cB_n()(t, _, _, _, _, tile), k::N);
    tessel::copy_if(copy::store{}, in, tensor::rS(rA), gB);
  }
