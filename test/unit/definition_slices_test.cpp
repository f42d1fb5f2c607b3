// Import scanning and definition slices: what the context follows of a module without parsing it.
#include "checkers/python/imports.h"
#include "program/definition_slices.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gradlint {
namespace {

// "statement.name:attr,attr" per use (name: the imported name, or the module for `import`).
std::vector<std::string> uses(const std::string& text, const std::set<std::string>& names) {
  const std::vector<python::ImportStatement> imports = python::scanImports(text);
  DefinitionSlices slices(text, imports);
  std::vector<std::string> out;
  for (const ImportUse& use : slices.usesOf(names)) {
    const python::ImportStatement& statement = imports[use.statement];
    std::string line = use.name >= 0 ? statement.names[use.name] : statement.module;
    line += ':';
    for (const std::string& attribute : use.attributes) line += attribute + ",";
    out.push_back(line);
  }
  return out;
}

TEST(ScanImports, SkipsStringsCommentsAndOtherStatements) {
  const std::string text = "x = 1; import a\n"
                           "'''\nimport not_this\n'''\n"
                           "# import nor_this\n"
                           "try: from b import (c,\n    d as e)\n"
                           "except ImportError: pass\n"
                           "def f():\n    from .. import g\n"
                           "imported = 2\n";
  const std::vector<python::ImportStatement> imports = python::scanImports(text);
  ASSERT_EQ(imports.size(), 3u);
  EXPECT_EQ(imports[0].module, "a");
  EXPECT_EQ(imports[0].line, 1u);
  EXPECT_EQ(imports[1].module, "b");
  EXPECT_EQ(imports[1].line, 6u);
  EXPECT_EQ(imports[1].bound, (std::vector<std::string>{"c", "e"}));
  EXPECT_EQ(imports[2].level, 2);
  EXPECT_EQ(imports[2].names, std::vector<std::string>{"g"});
}

TEST(DefinitionSlices, FollowsOnlyWhatTheAskedDefinitionsUse) {
  const std::string text = "import numpy as np\n"
                           "from .models import load, unused\n"
                           "from .other import Base\n"
                           "\n"
                           "def _helper():\n    return load()\n"
                           "\n"
                           "class Checker(Base):\n"
                           "    def __init__(self):\n"
                           "        self.x = _helper()\n"
                           "        self.y = np.linalg.norm  # np.zeros in a comment\n"
                           "\n"
                           "def elsewhere():\n    return unused()\n";
  EXPECT_EQ(uses(text, {"Checker"}),
            (std::vector<std::string>{"numpy:linalg,", "load:", "Base:"}));
  EXPECT_EQ(uses(text, {"elsewhere"}), std::vector<std::string>{"unused:"});
}

TEST(DefinitionSlices, ReexportsStarImportsAndRepeats) {
  const std::string text = "from .core import *\n"
                           "from .checker import Checker as Checker\n"
                           "import pkg.sub.mod\n"
                           "def uses_module():\n    return pkg.sub.mod.run()\n";
  const std::vector<python::ImportStatement> imports = python::scanImports(text);
  DefinitionSlices slices(text, imports);
  // A re-export asks the import for the name; a name defined nowhere here goes to the star.
  const std::vector<ImportUse> first = slices.usesOf({"Checker", "inf"});
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].statement, 0u);
  EXPECT_EQ(first[0].attributes, std::set<std::string>{"inf"});
  EXPECT_EQ(first[1].statement, 1u);
  // `import pkg.sub.mod` is asked for what is read after `pkg.sub.mod.`.
  const std::vector<ImportUse> second = slices.usesOf({"uses_module"});
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].attributes, std::set<std::string>{"run"});
  // Asked again: nothing new to follow.
  EXPECT_TRUE(slices.usesOf({"Checker", "uses_module"}).empty());
}

TEST(AttributesRead, WhatPlainImportsAreReadForAndNothingElse) {
  const std::string text = "import numpy as np\n"
                           "import a.b\n"
                           "import c\n"
                           "from d import e\n"
                           "x = np.linalg.norm(v) + np.zeros (3) + xnp.fake() + obj.np.fake()\n"
                           "z: np.ndarray = np.float32\n"
                           "@np.vectorize\n"
                           "def f(): pass\n"
                           "y = a.b.Helper() + a.other + e.not_asked\n";
  const std::vector<python::ImportStatement> imports = python::scanImports(text);
  ASSERT_EQ(imports.size(), 4u);
  const auto read = attributesRead(text, imports, [](const python::ImportStatement& statement) {
    return statement.module != "c";
  });
  ASSERT_EQ(read.size(), 4u);
  // Not `ndarray` or `float32`: only read, nothing of them runs.
  EXPECT_EQ(read[0], (std::vector<std::string>{"linalg", "vectorize", "zeros"}));
  EXPECT_EQ(read[1], std::vector<std::string>{"Helper"}); // `a.other` is not of `a.b`
  EXPECT_TRUE(read[2].empty()); // not wanted
  EXPECT_TRUE(read[3].empty()); // a from-import names what it takes
  EXPECT_TRUE(attributesRead("import z\n", python::scanImports("import z\n"),
                             [](const python::ImportStatement&) { return true; })
                  .empty()); // nothing read: no list at all
}

} // namespace
} // namespace gradlint
