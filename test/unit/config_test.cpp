// Configuration files: parsing and validation, where they are found, and how their rule
// selection combines with the command line's.
#include "program/config.h"
#include "rules/rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <unistd.h>

namespace gradlint {
namespace {

namespace fs = std::filesystem;

// A preview rule, registered in the unit-test binary only, so preview selection can be tested
// whatever the real rules are.
class FakePreviewRule final : public rules::Rule {
public:
  const rules::RuleInfo& info() const override {
    static constexpr rules::RuleInfo kInfo{"GL999", "fake-preview-rule", "A test-only rule",
                                           Severity::Warning, true};
    return kInfo;
  }
  void check(rules::RuleContext&) const override {}
};
GRADLINT_REGISTER_RULE(FakePreviewRule)

bool has(const std::vector<std::string>& codes, std::string_view code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

std::string errorOf(std::string_view text, const std::string& name = "gradlint.toml") {
  try {
    parseConfig(text, fs::path("/project") / name);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

Settings parsed(std::string_view text, const std::string& name = "gradlint.toml") {
  std::optional<Settings> settings = parseConfig(text, fs::path("/project") / name);
  EXPECT_TRUE(settings.has_value());
  return settings.value_or(Settings{});
}

// A temporary folder tree, removed at the end of the test.
class TempTree {
public:
  TempTree() {
    std::string pattern = (fs::temp_directory_path() / "gradlint-config-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  fs::path write(const std::string& relative, const std::string& text) const {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path;
  }
  const fs::path& root() const { return root_; }

private:
  fs::path root_;
};

TEST(ConfigParse, ReadsEveryKey) {
  const Settings settings = parsed(R"(
select = ["GL1", "gl000"]
extend-select = ["GL3"]
ignore = ["GL104"]
exclude = ["vendor", "build/"]
preview = true
extra-offload-calls = ["mylib.offload.to_cpu", "accelerate.cpu_offload"]
extra-reset-calls = ["mylib.offload.restore"]

[per-file-ignores]
"tests/*.py" = ["GL101"]
"__init__.py" = ["GL102", "GL103"]
)");
  ASSERT_TRUE(settings.select.has_value());
  EXPECT_EQ(*settings.select, (std::vector<std::string>{"GL1", "GL000"})); // upper-cased
  EXPECT_EQ(settings.extendSelect, std::vector<std::string>{"GL3"});
  EXPECT_EQ(settings.ignore, std::vector<std::string>{"GL104"});
  EXPECT_EQ(settings.exclude, (std::vector<std::string>{"vendor", "build/"}));
  EXPECT_TRUE(settings.preview);
  EXPECT_EQ(settings.extraOffloadCalls,
            (std::vector<std::string>{"mylib.offload.to_cpu", "accelerate.cpu_offload"}));
  EXPECT_EQ(settings.extraResetCalls, std::vector<std::string>{"mylib.offload.restore"});
  ASSERT_EQ(settings.perFileIgnores.size(), 2u); // in key order, as toml++ keeps tables
  EXPECT_EQ(settings.perFileIgnores[0].glob, "__init__.py");
  EXPECT_EQ(settings.perFileIgnores[0].codes, (std::vector<std::string>{"GL102", "GL103"}));
  EXPECT_EQ(settings.perFileIgnores[1].glob, "tests/*.py");
  EXPECT_EQ(settings.perFileIgnores[1].codes, std::vector<std::string>{"GL101"});
  EXPECT_EQ(settings.root, fs::path("/project"));
  EXPECT_EQ(settings.configPath, "/project/gradlint.toml");
}

TEST(ConfigParse, PyprojectIsReadFromToolGradlint) {
  const Settings settings = parsed("[project]\nname = \"x\"\n\n[tool.gradlint]\nignore = "
                                   "[\"GL105\"]\n",
                                   "pyproject.toml");
  EXPECT_EQ(settings.ignore, std::vector<std::string>{"GL105"});
  // Other tools' tables are none of our business; without ours the file is skipped.
  EXPECT_FALSE(parseConfig("[tool.ruff]\nselect = [\"E\"]\n", "/p/pyproject.toml").has_value());
  EXPECT_FALSE(parseConfig("[project]\nname = \"x\"\n", "/p/pyproject.toml").has_value());
  // In gradlint.toml the keys are top-level: an empty file is valid and changes nothing.
  EXPECT_TRUE(parseConfig("", "/p/gradlint.toml").has_value());
}

TEST(ConfigParse, ErrorsNameTheFileLineAndKey) {
  EXPECT_EQ(errorOf("select = [\"GL1\"]\nselectt = [\"GL1\"]\n"),
            "/project/gradlint.toml:2:1: unknown key `selectt` (expected one of: select, "
            "extend-select, ignore, exclude, per-file-ignores, preview, extra-offload-calls, "
            "extra-reset-calls, python, project-root, context, header-filter)");
  EXPECT_TRUE(errorOf("[tool.gradlint]\nfix = true\n", "pyproject.toml")
                  .starts_with("/project/pyproject.toml:2:1: unknown key `tool.gradlint.fix`"));
  EXPECT_EQ(errorOf("preview = \"yes\"\n"),
            "/project/gradlint.toml:1:11: `preview` must be a boolean (true or false), not a "
            "string");
  EXPECT_EQ(errorOf("select = \"GL1\"\n"),
            "/project/gradlint.toml:1:10: `select` must be an array of strings, not a string");
  EXPECT_EQ(errorOf("ignore = [\"GL101\", 104]\n"),
            "/project/gradlint.toml:1:20: `ignore` must be an array of strings, but holds an "
            "integer");
  EXPECT_EQ(errorOf("select = [\"GL101\", \"XX9\"]\n"),
            "/project/gradlint.toml:1:20: `select`: `XX9` matches no rule (see `gradlint rule "
            "--all`)");
  EXPECT_EQ(errorOf("[per-file-ignores]\n\"a.py\" = [\"GL8\"]\n"),
            "/project/gradlint.toml:2:11: `per-file-ignores.\"a.py\"`: `GL8` matches no rule "
            "(see `gradlint rule --all`)");
  EXPECT_EQ(errorOf("per-file-ignores = [\"a.py\"]\n"),
            "/project/gradlint.toml:1:20: `per-file-ignores` must be a table of glob = [codes], "
            "not an array");
  EXPECT_EQ(errorOf("extra-offload-calls = [\"to_cpu\"]\n"),
            "/project/gradlint.toml:1:24: `extra-offload-calls`: `to_cpu` is not a qualified "
            "name such as `mylib.offload.to_cpu`");
  EXPECT_NE(errorOf("extra-reset-calls = [\"a..b\"]\n").find("not a qualified name"),
            std::string::npos);
  EXPECT_NE(errorOf("extra-reset-calls = [\"a.1b\"]\n").find("not a qualified name"),
            std::string::npos);
  EXPECT_EQ(errorOf("[tool]\ngradlint = 3\n", "pyproject.toml"),
            "/project/pyproject.toml:2:12: `tool.gradlint` must be a table, not an integer");
  // TOML syntax errors come from toml++, with their position.
  const std::string syntax = errorOf("select = [\"GL1\"\n");
  EXPECT_TRUE(syntax.starts_with("/project/gradlint.toml:1:17: invalid TOML: ")) << syntax;
  EXPECT_TRUE(errorOf("a = 1\na = 2\n").starts_with("/project/gradlint.toml:2:5: invalid TOML: "));
}

TEST(RuleSelection, DefaultsSelectAndIgnore) {
  const Settings defaults;
  const CliSelection none;
  const std::vector<std::string> all = enabledRules(defaults, none, "/x/a.py");
  EXPECT_TRUE(has(all, "GL101"));
  EXPECT_TRUE(has(all, "GL000"));
  EXPECT_FALSE(has(all, "GL999")); // preview rules are off by default

  Settings settings;
  settings.select = std::vector<std::string>{"GL10"};
  settings.ignore = {"GL104"};
  std::vector<std::string> codes = enabledRules(settings, none, "/x/a.py");
  EXPECT_TRUE(has(codes, "GL101"));
  EXPECT_FALSE(has(codes, "GL104")); // ignore wins over select
  EXPECT_TRUE(has(codes, "GL000"));  // always on

  settings.extendSelect = {"GL104"};
  codes = enabledRules(settings, none, "/x/a.py");
  EXPECT_FALSE(has(codes, "GL104")); // still ignored in the same layer
}

TEST(RuleSelection, CommandLineFollowsRuff) {
  Settings settings;
  settings.select = std::vector<std::string>{"GL101"};
  settings.ignore = {"GL105"};

  CliSelection extend;
  extend.extendSelect = {"GL105", "GL103"};
  std::vector<std::string> codes = enabledRules(settings, extend, "/x/a.py");
  EXPECT_TRUE(has(codes, "GL101"));
  EXPECT_TRUE(has(codes, "GL103"));
  EXPECT_TRUE(has(codes, "GL105")); // a later layer's selection wins over the file's ignore

  CliSelection select;
  select.select = std::vector<std::string>{"GL104", "GL105"};
  codes = enabledRules(settings, select, "/x/a.py");
  EXPECT_FALSE(has(codes, "GL101")); // --select replaces the file's selection...
  EXPECT_TRUE(has(codes, "GL105"));  // ...and its ignores
  EXPECT_TRUE(has(codes, "GL104"));

  CliSelection ignore;
  ignore.ignore = {"GL101"};
  codes = enabledRules(settings, ignore, "/x/a.py");
  EXPECT_FALSE(has(codes, "GL101"));
  EXPECT_TRUE(has(codes, "GL000"));
}

// GL001 (a C++ file that does not compile) is on by default and a selection of other rules
// keeps it; only an ignore turns it off (unlike GL000), and naming it selects it again.
TEST(RuleSelection, CompileErrorsStayUnlessIgnored) {
  const Settings defaults;
  const CliSelection none;
  EXPECT_TRUE(has(enabledRules(defaults, none, "/x/a.cpp"), "GL001"));

  CliSelection select;
  select.select = std::vector<std::string>{"GL101"};
  std::vector<std::string> codes = enabledRules(defaults, select, "/x/a.cpp");
  EXPECT_TRUE(has(codes, "GL001"));
  EXPECT_FALSE(has(codes, "GL105"));

  Settings fileSelect;
  fileSelect.select = std::vector<std::string>{"GL3"};
  EXPECT_TRUE(has(enabledRules(fileSelect, none, "/x/a.cpp"), "GL001"));

  CliSelection ignore;
  ignore.ignore = {"GL001"};
  codes = enabledRules(defaults, ignore, "/x/a.cpp");
  EXPECT_FALSE(has(codes, "GL001"));
  EXPECT_TRUE(has(codes, "GL000")); // GL000 stays, whatever an ignore says

  Settings ignoredInFile;
  ignoredInFile.ignore = {"GL00"};
  EXPECT_FALSE(has(enabledRules(ignoredInFile, none, "/x/a.cpp"), "GL001"));
  // A later select that does not name it leaves it off; one that names it turns it on.
  EXPECT_FALSE(has(enabledRules(ignoredInFile, select, "/x/a.cpp"), "GL001"));
  CliSelection named;
  named.select = std::vector<std::string>{"GL001", "GL101"};
  EXPECT_TRUE(has(enabledRules(ignoredInFile, named, "/x/a.cpp"), "GL001"));

  Settings perFile;
  perFile.root = "/project";
  perFile.perFileIgnores = {{"vendor/*", {"GL001"}}};
  EXPECT_FALSE(has(enabledRules(perFile, none, "/project/vendor/v.cpp"), "GL001"));
  EXPECT_TRUE(has(enabledRules(perFile, none, "/project/src/a.cpp"), "GL001"));
}

TEST(RuleSelection, PreviewRules) {
  Settings settings;
  settings.select = std::vector<std::string>{"ALL"};
  const CliSelection none;
  EXPECT_FALSE(has(enabledRules(settings, none, "/x/a.py"), "GL999"));
  settings.preview = true;
  EXPECT_TRUE(has(enabledRules(settings, none, "/x/a.py"), "GL999"));

  Settings plain;
  CliSelection preview;
  preview.select = std::vector<std::string>{"ALL"};
  preview.preview = true;
  EXPECT_TRUE(has(enabledRules(plain, preview, "/x/a.py"), "GL999"));
  // Named explicitly, a preview rule runs without the preview switch.
  CliSelection named;
  named.select = std::vector<std::string>{"GL999"};
  EXPECT_TRUE(has(enabledRules(plain, named, "/x/a.py"), "GL999"));
}

TEST(RuleSelection, PerFileIgnoresAreRelativeToTheConfiguration) {
  Settings settings;
  settings.root = "/project";
  settings.perFileIgnores = {
      {"tests/*.py", {"GL101"}}, {"__init__.py", {"GL1"}}, {"!src/*", {"GL105"}}};
  const CliSelection none;
  const std::vector<std::string> test = enabledRules(settings, none, "/project/tests/t.py");
  EXPECT_FALSE(has(test, "GL101"));
  EXPECT_TRUE(has(test, "GL104"));
  EXPECT_FALSE(has(test, "GL105")); // not under src/
  const std::vector<std::string> init =
      enabledRules(settings, none, "/project/src/pkg/__init__.py");
  EXPECT_FALSE(has(init, "GL101")); // by name, in any folder
  EXPECT_FALSE(has(init, "GL104"));
  EXPECT_TRUE(has(init, "GL000"));
  const std::vector<std::string> source = enabledRules(settings, none, "/project/src/a.py");
  EXPECT_TRUE(has(source, "GL101"));
  EXPECT_TRUE(has(source, "GL105"));
  // Outside the configuration's folder only names can match.
  EXPECT_TRUE(has(enabledRules(settings, none, "/elsewhere/tests/t.py"), "GL101"));
}

TEST(Exclude, ByNameOrRelativePath) {
  Settings settings;
  settings.root = "/project";
  settings.exclude = {"vendor", "build/", "gen/*.py", "*_pb2.py"};
  EXPECT_TRUE(isExcluded(settings, "/project/vendor"));
  EXPECT_TRUE(isExcluded(settings, "/project/src/vendor")); // a name anywhere below
  EXPECT_TRUE(isExcluded(settings, "/project/build"));
  EXPECT_TRUE(isExcluded(settings, "/project/gen/a.py"));
  EXPECT_TRUE(isExcluded(settings, "/project/src/api_pb2.py"));
  EXPECT_FALSE(isExcluded(settings, "/project/src/a.py"));
  EXPECT_FALSE(isExcluded(settings, "/project/general/a.py"));
  // The configuration's folder and those above it are not excluded by its globs.
  Settings underBuild;
  underBuild.root = "/home/build/project";
  underBuild.exclude = {"build", "project"};
  EXPECT_FALSE(isExcluded(underBuild, "/home/build/project"));
  EXPECT_FALSE(isExcluded(underBuild, "/home/build"));
  EXPECT_TRUE(isExcluded(underBuild, "/home/build/project/src/build"));
}

TEST(ConfigResolver, NearestConfigurationWins) {
  TempTree tree;
  tree.write("pyproject.toml", "[tool.gradlint]\nignore = [\"GL101\"]\n");
  tree.write("a/pyproject.toml", "[project]\nname = \"no gradlint table\"\n");
  tree.write("a/b/gradlint.toml", "ignore = [\"GL104\"]\n");
  tree.write("a/b/pyproject.toml", "[tool.gradlint]\nignore = [\"GL105\"]\n");
  tree.write("c/.gradlint.toml", "ignore = [\"GL103\"]\n");
  tree.write("c/gradlint.toml", "ignore = [\"GL102\"]\n");
  ConfigResolver resolver(std::nullopt);

  const auto top = resolver.settingsForFile(tree.root() / "x.py");
  EXPECT_EQ(top->ignore, std::vector<std::string>{"GL101"});
  EXPECT_EQ(top->root, tree.root());
  // A pyproject.toml without [tool.gradlint] is skipped: the one above applies.
  EXPECT_EQ(resolver.settingsForFile(tree.root() / "a/x.py")->ignore,
            std::vector<std::string>{"GL101"});
  // gradlint.toml beats pyproject.toml in the same folder; deeper folders inherit it.
  const auto deep = resolver.settingsForFile(tree.root() / "a/b/c/d/x.py");
  EXPECT_EQ(deep->ignore, std::vector<std::string>{"GL104"});
  EXPECT_EQ(deep->root, tree.root() / "a/b");
  // .gradlint.toml beats gradlint.toml.
  EXPECT_EQ(resolver.settingsForFile(tree.root() / "c/x.py")->ignore,
            std::vector<std::string>{"GL103"});
  // A folder is governed by its parent's configuration.
  EXPECT_EQ(resolver.settingsForFolder(tree.root() / "a/b")->ignore,
            std::vector<std::string>{"GL101"});
}

TEST(ConfigResolver, FolderListingsSpareTheLookups) {
  TempTree tree;
  tree.write("gradlint.toml", "ignore = [\"GL101\"]\n");
  tree.write("a/gradlint.toml", "ignore = [\"GL104\"]\n");
  tree.write("b/gradlint.toml", "ignore = [\"GL105\"]\n");
  ConfigResolver resolver(std::nullopt);
  // A listing that shows a config file leaves the lookup to the file system.
  resolver.noteFolderListing((tree.root() / "a").string(), {"gradlint.toml", "x.py"});
  EXPECT_EQ(resolver.settingsForFile(tree.root() / "a/x.py")->ignore,
            std::vector<std::string>{"GL104"});
  // One that shows none is taken at its word: b's file (written after the listing, say) is not
  // looked for, and the configuration above applies.
  resolver.noteFolderListing((tree.root() / "b").string(), {"x.py"});
  EXPECT_EQ(resolver.settingsForFile(tree.root() / "b/x.py")->ignore,
            std::vector<std::string>{"GL101"});
}

TEST(ConfigResolver, OverrideAppliesEverywhere) {
  TempTree tree;
  tree.write("a/gradlint.toml", "ignore = [\"GL104\"]\n");
  const fs::path chosen = tree.write("chosen.toml", "ignore = [\"GL105\"]\n");
  ConfigResolver resolver(chosen.string());
  EXPECT_EQ(resolver.settingsForFile(tree.root() / "a/x.py")->ignore,
            std::vector<std::string>{"GL105"});
  EXPECT_EQ(resolver.settingsForFile(fs::path("/somewhere/else.py"))->configPath, chosen.string());
}

TEST(ConfigResolver, BrokenOrMissingConfigurationThrows) {
  TempTree tree;
  tree.write("a/gradlint.toml", "select = [\n");
  ConfigResolver resolver(std::nullopt);
  EXPECT_THROW(resolver.settingsForFile(tree.root() / "a/x.py"), ConfigError);
  EXPECT_THROW(ConfigResolver((tree.root() / "missing.toml").string()), ConfigError);
  tree.write("p/pyproject.toml", "[project]\n");
  EXPECT_THROW(ConfigResolver((tree.root() / "p/pyproject.toml").string()), ConfigError);
}

} // namespace
} // namespace gradlint
