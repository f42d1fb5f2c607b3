#pragma once
constexpr int kEpochs = 3;
