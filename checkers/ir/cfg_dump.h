// A stable text form of a unit's CFG, for `gradlint debug cfg` and the CFG tests.
#pragma once

#include "checkers/ir/grad_ir.h"

#include <string>

namespace gradlint::ir {

// One line per reachable node in id order:
//   3: SetGrad(disabled) torch.set_grad_enabled @4:5 -> 4 !7
// where `-> a b` are normal successors and `!e` the exception successor.
std::string dumpCfg(const FunctionIR& fn);

} // namespace gradlint::ir
