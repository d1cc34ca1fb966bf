// Names, locations and strings that are not UTF-8 after unescaping.
func.func @main(%arg0: tensor<8x16xf32> loc("x\FFy"), %arg1: tensor<16x4xf32> loc("w\FE")) -> tensor<8x4xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32> loc("mm\FF")
  return %0 : tensor<8x4xf32>
}
