#include "tools.h"
#include <vendor.h>

void train_a(torch::nn::Module& model) { predict(model); }
