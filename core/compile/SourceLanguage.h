#pragma once
// What a program's source is written in: CUDA C++ (NVRTC), PTX (nvJitLink) or NVVM IR
// (libNVVM, then nvJitLink), as cuda.core's Program takes "c++", "ptx" and "nvvm".

#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

enum class SourceLanguage { Cuda, Ptx, Nvvm };

/// "cuda", "ptx", "nvvm": the JSON spelling (the project's "language" field).
[[nodiscard]] QString languageName(SourceLanguage language);
/// The language of a JSON spelling; nothing for an unknown one.
[[nodiscard]] std::optional<SourceLanguage> languageFromName(const QString& name);
/// Every JSON spelling, in enum order.
[[nodiscard]] QStringList languageNames();
/// The language a source file's suffix implies: .ptx -> Ptx, .ll/.nvvm -> Nvvm, else Cuda.
[[nodiscard]] SourceLanguage languageOfFile(const QString& fileName);
/// "CUDA C++", "PTX", "NVVM IR": for messages.
[[nodiscard]] QString languageTitle(SourceLanguage language);

} // namespace kernelpad
