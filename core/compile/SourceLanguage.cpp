#include "core/compile/SourceLanguage.h"

namespace kernelpad {

QString languageName(SourceLanguage language) {
    switch (language) {
    case SourceLanguage::Ptx:
        return QStringLiteral("ptx");
    case SourceLanguage::Nvvm:
        return QStringLiteral("nvvm");
    case SourceLanguage::Cuda:
        break;
    }
    return QStringLiteral("cuda");
}

std::optional<SourceLanguage> languageFromName(const QString& name) {
    for (SourceLanguage language :
         {SourceLanguage::Cuda, SourceLanguage::Ptx, SourceLanguage::Nvvm}) {
        if (languageName(language) == name)
            return language;
    }
    return std::nullopt;
}

QStringList languageNames() {
    return {languageName(SourceLanguage::Cuda), languageName(SourceLanguage::Ptx),
            languageName(SourceLanguage::Nvvm)};
}

SourceLanguage languageOfFile(const QString& fileName) {
    const QString lower = fileName.toLower();
    if (lower.endsWith(QLatin1String(".ptx")))
        return SourceLanguage::Ptx;
    if (lower.endsWith(QLatin1String(".ll")) || lower.endsWith(QLatin1String(".nvvm")))
        return SourceLanguage::Nvvm;
    return SourceLanguage::Cuda;
}

QString languageTitle(SourceLanguage language) {
    switch (language) {
    case SourceLanguage::Ptx:
        return QStringLiteral("PTX");
    case SourceLanguage::Nvvm:
        return QStringLiteral("NVVM IR");
    case SourceLanguage::Cuda:
        break;
    }
    return QStringLiteral("CUDA C++");
}

} // namespace kernelpad
