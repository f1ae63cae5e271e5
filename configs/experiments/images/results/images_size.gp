$size << EOD
# images vit cnn
1000 59.65 80.75
10000 62.85 80.55
58000 58.30 80.65
EOD
set terminal pngcairo size 640,420
set output 'images_size.png'
set logscale x
set xlabel 'training images'
set ylabel 'validation accuracy (%)'
set key center right
set grid
set title 'Fashion-MNIST: attention and a CNN, same parameters and steps'
plot $size using 1:2 with linespoints lw 2 title 'attention (ViT, patches 4x4)', $size using 1:3 with linespoints lw 2 title 'CNN (cnn2d)'
