#include "tool/cli_docs.h"

#include "rules/rule.h"

#include <fmt/format.h>

#include <cstdint>
#include <sstream>
#include <string_view>

#ifndef GRADLINT_VERSION
#define GRADLINT_VERSION "0.0.0"
#endif

namespace gradlint {
namespace {

std::vector<const CLI::App*> visibleSubcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

// Text for roff: backslashes and minus signs escaped, a leading control character defused, and
// characters beyond ASCII written \[uXXXX] (groff reads its input as Latin-1).
std::string roffEscape(std::string_view text) {
  std::string out;
  if (!text.empty() && (text.front() == '.' || text.front() == '\'')) out = "\\&";
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      // A UTF-8 sequence (the docs are UTF-8); a stray byte becomes U+FFFD.
      const size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      uint32_t code = length == 1 ? 0xfffd : c & (0x7f >> length);
      for (size_t k = 1; k < length; ++k) {
        const auto next = i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
        if ((next & 0xc0) != 0x80) {
          code = 0xfffd;
          break;
        }
        code = code << 6 | (next & 0x3f);
      }
      if (code != 0xfffd) i += length - 1;
      out += fmt::format("\\[u{:04X}]", code);
    }
  }
  return out;
}

// Markdown inline markup in one escaped line: `code` and **strong** in bold, [text](url) as text.
std::string roffInline(std::string_view line) {
  const std::string escaped = roffEscape(line);
  std::string out;
  bool inCode = false;
  for (size_t i = 0; i < escaped.size(); ++i) {
    const char c = escaped[i];
    if (c == '`') {
      out += inCode ? "\\fR" : "\\fB";
      inCode = !inCode;
    } else if (!inCode && c == '*' && i + 1 < escaped.size() && escaped[i + 1] == '*') {
      const size_t close = escaped.find("**", i + 2);
      if (close == std::string::npos) {
        out += "**";
      } else {
        out += "\\fB" + escaped.substr(i + 2, close - i - 2) + "\\fR";
        i = close;
      }
      ++i;
      continue;
    } else if (!inCode && c == '[') {
      const size_t middle = escaped.find("](", i);
      const size_t close = middle == std::string::npos ? middle : escaped.find(')', middle);
      if (close == std::string::npos) {
        out += c;
        continue;
      }
      out += escaped.substr(i + 1, middle - i - 1);
      i = close;
    } else {
      out += c;
    }
  }
  if (inCode) out += "\\fR";
  return out;
}

// A rule page (docs/rules/GLxxx.md) as roff, its title line left out (the caller's .SS).
void appendMarkdown(std::string_view markdown, std::string& out) {
  bool inFence = false;
  bool paragraphOpen = false;
  size_t start = 0;
  bool first = true;
  while (start <= markdown.size()) {
    size_t end = markdown.find('\n', start);
    if (end == std::string_view::npos) end = markdown.size();
    std::string_view line = markdown.substr(start, end - start);
    start = end + 1;
    // Outside code, a leading indent continues a list item (roff would break the line there).
    if (!inFence && !line.starts_with("```")) {
      const size_t text = line.find_first_not_of(' ');
      line.remove_prefix(text == std::string_view::npos ? line.size() : text);
    }
    if (first && line.starts_with("# ")) {
      first = false;
      continue;
    }
    first = false;
    if (line.starts_with("```")) {
      out += inFence ? ".fi\n.RE\n" : ".PP\n.RS 4\n.nf\n";
      inFence = !inFence;
      paragraphOpen = false;
      continue;
    }
    if (inFence) {
      out += roffEscape(line) + "\n";
    } else if (line.empty()) {
      paragraphOpen = false;
    } else if (line.starts_with("#")) {
      const size_t text = line.find_first_not_of("# ");
      out += ".PP\n\\fB" + roffInline(line.substr(text == std::string_view::npos ? 0 : text)) +
             "\\fR\n";
      paragraphOpen = false;
    } else if (line.starts_with("- ") || line.starts_with("* ")) {
      out += ".IP \\(bu 2\n" + roffInline(line.substr(2)) + "\n";
      paragraphOpen = true;
    } else if (line.starts_with("|")) {
      // A table row: one line each, as written.
      if (!paragraphOpen) out += ".PP\n";
      out += roffInline(line) + "\n.br\n";
      paragraphOpen = true;
    } else {
      if (!paragraphOpen) out += ".PP\n";
      out += roffInline(line) + "\n";
      paragraphOpen = true;
    }
  }
  if (inFence) out += ".fi\n.RE\n";
}

void appendHelp(const CLI::App& command, const std::string& parents, std::string& out) {
  out += fmt::format(".SS {}\n.nf\n", roffEscape(parents + " " + command.get_name()));
  std::istringstream help(command.help(parents));
  for (std::string line; std::getline(help, line);) out += roffEscape(line) + "\n";
  out += ".fi\n";
  for (const CLI::App* sub : visibleSubcommands(command)) {
    appendHelp(*sub, parents + " " + command.get_name(), out);
  }
}

std::string joinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

} // namespace

std::string manPage(const CLI::App& app) {
  const std::string name = app.get_name();
  std::string out = fmt::format(".TH GRADLINT 1 \"\" \"gradlint {}\" \"User Commands\"\n",
                                GRADLINT_VERSION);
  out += ".SH NAME\ngradlint \\- find PyTorch grad\\-mode misuse in Python and C++ code\n";
  out += ".SH SYNOPSIS\n.nf\n";
  out += "\\fBgradlint check\\fR [\\fIOPTIONS\\fR] [\\fIPATH\\fR...] "
         "[\\fB\\-\\-\\fR \\fICOMPILER FLAGS\\fR]\n";
  out += "\\fBgradlint rule\\fR \\fICODE\\fR | \\fB\\-\\-all\\fR\n";
  out += "\\fBgradlint server\\fR\n";
  out += "\\fBgradlint probe run\\fR [\\fB\\-\\-findings\\fR \\fIF.json\\fR] \\fB\\-\\-\\fR "
         "\\fICOMMAND\\fR...\n";
  out += "\\fBgradlint probe replay\\fR \\fIF.json\\fR\n.fi\n";
  out += ".SH DESCRIPTION\n\\fBgradlint\\fR is a static analyzer that finds PyTorch grad\\-mode misuse "
         "before it ships.\n";
  out += ".PP\nIt finds toggles of grad mode that are not restored, guards that are never "
         "entered, training loops that apply stale or zeroed gradients, and more: see RULES. "
         "Python files are parsed with tree\\-sitter; C++ files are compiled with Clang, from a "
         "compilation database (\\fB\\-p\\fR) or the flags after \\fB\\-\\-\\fR, by the C++ "
         "module (\\fIPREFIX\\fR/lib/gradlint/libgradlint\\-cpp.so, Debian package "
         "\\fBgradlint\\-cpp\\fR), loaded only when a run has C++ files.\n";
  out += ".SH COMMANDS\n";
  for (const CLI::App* sub : visibleSubcommands(app)) appendHelp(*sub, name, out);
  out += ".SH EXIT STATUS\n.TP\n0\nNo findings.\n.TP\n1\nFindings (unless "
         "\\fB\\-\\-exit\\-zero\\fR).\n.TP\n2\nA usage, configuration or I/O error; the message "
         "names the path and why. Also a run where nothing could be checked: every file a C++ "
         "file from which Clang recovered no function (GL001).\n";
  out += ".SH ENVIRONMENT\n.TP\n.B GRADLINT_CACHE_DIR\nWhere results are cached, unless "
         "\\fB\\-\\-cache\\-dir\\fR is given.\n.TP\n.B GRADLINT_NO_CACHE\nAny value but 0 is "
         "\\fB\\-\\-no\\-cache\\fR.\n.TP\n.B GRADLINT_NO_PCH\nAny value but 0 is "
         "\\fB\\-\\-no\\-pch\\fR.\n";
  out += ".SH FILES\n.TP\n.I pyproject.toml\\fR, \\fPgradlint.toml\nConfiguration: the nearest "
         "one above each file ([tool.gradlint] in pyproject.toml).\n.TP\n.I .gradlint_cache/\n"
         "The results cache.\n.TP\n.I .gradlint_cache/pch/\nPrecompiled headers of the "
         "third\\-party headers C++ files start with (bounded apart, at 1 GB).\n.TP\n"
         ".I PREFIX/lib/gradlint/\nThe C++ module, the clang\\-tidy "
         "plugin (libgradlint\\-tidy.so) and the runtime probe's tracer.\n.TP\n"
         ".I PREFIX/share/doc/gradlint/\nThe full documentation.\n";
  out += ".SH RULES\n";
  for (const rules::Rule* rule : rules::allRules()) {
    const rules::RuleInfo& info = rule->info();
    out += fmt::format(".SS {} {}\n", info.code, roffEscape(info.name));
    appendMarkdown(rules::ruleDocumentation(info.code), out);
  }
  out += ".SH SEE ALSO\n\\fBclang\\-tidy\\fR(1), \\fBpre\\-commit\\fR(1)\n";
  return out;
}

std::string bashCompletion(const CLI::App& app, const CompletionWords& words) {
  const std::string name = app.get_name();
  std::string function = "_" + name;
  for (char& c : function) {
    if (c == '-') c = '_';
  }
  std::vector<std::string> commands;
  for (const CLI::App* sub : visibleSubcommands(app)) commands.push_back(sub->get_name());
  std::string out = fmt::format(
      "# bash completion for {0} (generated by `{0} generate-shell-completion bash`)\n"
      "{1}() {{\n"
      "  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}\n"
      "  local command=\"\" i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${{COMP_WORDS[i]}} in\n"
      "      --) return 0 ;; # compile flags or a command follow\n"
      "      -*) ;;\n"
      "      *) command+=${{command:+ }}${{COMP_WORDS[i]}} ;;\n"
      "    esac\n"
      "  done\n"
      "  local options=\"\" values=\"\" positional=\"\"\n"
      "  case $command in\n"
      "    \"\") COMPREPLY=($(compgen -W \"{2} --help --version\" -- \"$cur\")); return 0 ;;\n",
      name, function, joinWords(commands));
  // Each subcommand's options; the words before the first path are the subcommand's name.
  std::vector<std::pair<std::string, const CLI::App*>> pending;
  for (const CLI::App* sub : visibleSubcommands(app)) pending.emplace_back(sub->get_name(), sub);
  for (size_t next = 0; next < pending.size(); ++next) {
    const auto [path, command] = pending[next];
    std::vector<std::string> options;
    std::vector<std::string> takesValue;
    for (const CLI::Option* option : command->get_options()) {
      if (option->get_group().empty() || !option->nonpositional()) continue;
      for (const std::string& longName : option->get_lnames()) {
        options.push_back("--" + longName);
        if (option->get_items_expected_max() != 0) takesValue.push_back("--" + longName);
      }
      for (const std::string& shortName : option->get_snames()) {
        options.push_back("-" + shortName);
        if (option->get_items_expected_max() != 0) takesValue.push_back("-" + shortName);
      }
    }
    std::vector<std::string> subNames;
    for (const CLI::App* sub : visibleSubcommands(*command)) {
      subNames.push_back(sub->get_name());
      pending.emplace_back(path + " " + sub->get_name(), sub);
    }
    // What a positional word may be: subcommands, listed words, else files.
    std::vector<std::string> positionalWords = subNames;
    for (const CLI::Option* option : command->get_options()) {
      if (option->nonpositional()) continue;
      const auto listed = words.find(path + " " + option->get_name());
      if (listed != words.end()) {
        positionalWords.insert(positionalWords.end(), listed->second.begin(),
                               listed->second.end());
      }
    }
    // A command with subcommands matches its own name only; a leaf, its name and what follows.
    const std::string pattern = subNames.empty()
                                    ? fmt::format("\"{0}\"|\"{0} \"*", path)
                                    : fmt::format("\"{}\"", path);
    out += fmt::format("    {})\n      options=\"{}\"\n      values=\"{}\"\n      "
                       "positional=\"{}\"\n",
                       pattern, joinWords(options), joinWords(takesValue),
                       joinWords(positionalWords));
    out += "      case $prev in\n";
    for (const std::string& option : takesValue) {
      const auto listed = words.find(path + " " + option);
      if (listed == words.end()) continue;
      out += fmt::format("        {}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return 0 ;;\n",
                         option, joinWords(listed->second));
    }
    out += "      esac\n      ;;\n";
  }
  out += "  esac\n"
         "  case \" $values \" in\n"
         "    *\" $prev \"*) COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n"
         "  esac\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$options --help\" -- \"$cur\"))\n"
         "  elif [[ -n $positional ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$positional\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n";
  out += fmt::format("complete -o filenames -F {} {}\n", function, name);
  return out;
}

} // namespace gradlint
