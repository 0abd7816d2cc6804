#include "tooling/macros.h"

#include "clang/Lex/MacroInfo.h"

namespace kbcc::tooling {
using namespace clang;

namespace {

class MacroRecorder : public PPCallbacks {
public:
  MacroRecorder(Preprocessor &pp, MacroUses &sink) : pp_(pp), sink_(sink) {}

  void MacroExpands(const Token &name, const MacroDefinition &md, SourceRange range, const MacroArgs *) override {
    record(name, md, range.getBegin());
  }
  void Defined(const Token &name, const MacroDefinition &md, SourceRange range) override {
    record(name, md, range.getBegin());
  }
  void Ifdef(SourceLocation loc, const Token &name, const MacroDefinition &md) override { record(name, md, loc); }
  void Ifndef(SourceLocation loc, const Token &name, const MacroDefinition &md) override { record(name, md, loc); }
  void Elifdef(SourceLocation loc, const Token &name, const MacroDefinition &md) override { record(name, md, loc); }
  void Elifndef(SourceLocation loc, const Token &name, const MacroDefinition &md) override { record(name, md, loc); }

private:
  void record(const Token &name, const MacroDefinition &md, SourceLocation where) {
    const SourceManager &sm = pp_.getSourceManager();
    SourceLocation loc = sm.getExpansionLoc(where.isValid() ? where : name.getLocation());
    if (loc.isInvalid() || sm.isInSystemHeader(loc)) return;
    auto [file, offset] = sm.getDecomposedLoc(loc);
    const IdentifierInfo *ii = name.getIdentifierInfo();
    if (!ii) return;
    sink_.uses.push_back({file, offset, ii->getName().str(), definition(md, loc), user_defined(md)});
  }

  bool user_defined(const MacroDefinition &md) const {
    const MacroInfo *mi = md.getMacroInfo();
    if (!mi || mi->isBuiltinMacro()) return false;
    const SourceManager &sm = pp_.getSourceManager();
    SourceLocation loc = mi->getDefinitionLoc();
    if (loc.isInvalid() || sm.isInSystemHeader(loc)) return false;
    return sm.getFileEntryRefForID(sm.getFileID(sm.getExpansionLoc(loc))).has_value();
  }

  std::string definition(const MacroDefinition &md, SourceLocation use) const {
    const MacroInfo *mi = md.getMacroInfo();
    if (!mi) return "<undefined>";
    const SourceManager &sm = pp_.getSourceManager();
    if (mi->isBuiltinMacro()) {
      PresumedLoc p = sm.getPresumedLoc(use);
      return p.isValid() ? "<builtin> " + std::string(p.getFilename()) + ":" + std::to_string(p.getLine())
                         : "<builtin>";
    }
    std::string out;
    if (mi->isFunctionLike()) {
      out += '(';
      for (const IdentifierInfo *param : mi->params()) {
        if (out.size() > 1) out += ',';
        out += param->getName().str();
      }
      out += mi->isVariadic() ? "...)" : ")";
    }
    for (const Token &t : mi->tokens()) {
      if (!out.empty()) out += ' ';
      out += pp_.getSpelling(t);
    }
    return out;
  }

  Preprocessor &pp_;
  MacroUses &sink_;
};

} // namespace

std::vector<const MacroUse *> MacroUses::in(const FileRange &range) const {
  std::vector<const MacroUse *> out;
  for (const MacroUse &u : uses)
    if (u.file == range.file && u.offset >= range.begin && u.offset < range.end) out.push_back(&u);
  return out;
}

std::unique_ptr<PPCallbacks> make_macro_recorder(Preprocessor &pp, MacroUses &sink) {
  return std::make_unique<MacroRecorder>(pp, sink);
}

} // namespace kbcc::tooling
