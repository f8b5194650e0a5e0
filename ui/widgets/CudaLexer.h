#pragma once
// C++ highlighting with CUDA's keywords, built-ins and vector types as a second keyword set;
// for a PTX or NVVM IR project the same lexer colours that language's words instead.

#include "core/compile/SourceLanguage.h"
#include "ui/Theme.h"

#include <Qsci/qscilexercpp.h>

namespace kernelpad {

/// QsciLexerCPP whose keyword set 2 holds CUDA qualifiers, built-in variables, intrinsics
/// and vector/half types, coloured apart from plain C++ keywords.
class CudaLexer : public QsciLexerCPP {
    Q_OBJECT
public:
    explicit CudaLexer(QObject* parent = nullptr);

    [[nodiscard]] const char* language() const override;
    /// Set 1: C++ keywords; set 2: CUDA keywords and built-ins; set 4: common library types.
    [[nodiscard]] const char* keywords(int set) const override;
    [[nodiscard]] QString description(int style) const override;

    /// Colours every style (active and inactive code) from `theme`, with `font`.
    void applyTheme(const Theme& theme, const QFont& font);

    /// Which words the keyword sets hold: for PTX, set 1 the instructions, set 2 directives,
    /// state spaces and types, set 4 special registers; for NVVM IR, LLVM's instructions and
    /// types. PTX's `//` and `/* */` comments, numbers and labels lex as C++'s do. The editor
    /// re-sets the lexer afterwards so that Scintilla reads the new sets.
    void setSourceLanguage(SourceLanguage language) { m_language = language; }
    [[nodiscard]] SourceLanguage sourceLanguage() const { return m_language; }

    /// The CUDA words of keyword set 2, for tests and completion.
    [[nodiscard]] static QStringList cudaKeywords();

private:
    SourceLanguage m_language = SourceLanguage::Cuda;
};

} // namespace kernelpad
