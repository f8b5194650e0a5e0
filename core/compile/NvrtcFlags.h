#pragma once
// The one table of NVRTC flags KernelPad passes on. A project file is untrusted (people download
// them) and is compiled as soon as it opens, so a flag reaches NVRTC only if it is listed here
// with a checked value: flags that write files (--create-pch, --time, -fdevice-time-trace) or
// read files outside the checked include path (--use-pch, --pre-include) are refused.

#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// A refused token of a flag list: where it is, what it was, and why it is refused.
struct FlagRefusal {
    qsizetype index = -1; ///< index of the refused token in the list checked
    QString flag;         ///< the token as given ("--create-pch=/home/u/.bashrc")
    QString reason;       ///< a sentence: "it writes a precompiled header file ..."

    /// "\"--time=x\" is refused: it appends timing lines to the file it names".
    [[nodiscard]] QString message() const;
};

/// Checks the user's extra flags: each token must be a listed flag that makes NVRTC read and
/// write no file, with a well-formed value (`--x=v`, `-x=v`, or `-x v` as two tokens, which
/// must both be in `extraFlags`). Flags that have a ProgramOptions field (-arch, -D, -I, ...)
/// are refused with the field's name. nullopt when every token is allowed.
[[nodiscard]] std::optional<FlagRefusal> checkExtraFlags(const QStringList& extraFlags);

/// Checks a whole NVRTC command line as ProgramOptions::toFlags() builds it: the extra flags
/// above plus the flags of the typed fields (-arch=sm_90, -std=, -D, -I, ...).
[[nodiscard]] std::optional<FlagRefusal> checkNvrtcFlags(const QStringList& flags);

/// "NAME" or "NAME=VALUE" with NAME a C identifier and no control character anywhere (a
/// newline in a -D value would end the definition early in NVRTC's command-line "file").
[[nodiscard]] bool isValidDefine(const QString& define);

/// The allowed extra flags in their long spelling with their values, for help texts:
/// "--dopt=on, --ftz=true|false, ...".
[[nodiscard]] QString allowedExtraFlagsSummary();

} // namespace kernelpad
