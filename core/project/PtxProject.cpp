#include "core/project/PtxProject.h"

#include "core/compile/KernelNames.h"
#include "core/compile/PtxParser.h"

#include <QFileInfo>

namespace kernelpad {

Project ptxProjectFrom(const Project& project, const QString& ptx, const QString& loweredKernel) {
    Project made;
    made.name = (project.name.isEmpty() ? QStringLiteral("Untitled") : project.name) +
                QStringLiteral(" (PTX)");
    made.description =
        QStringLiteral("The PTX of %1, to edit by hand: nvJitLink assembles it for the run.")
            .arg(project.name.isEmpty() ? project.sourceName : project.name);
    made.source = ptx;
    made.sourceName = QFileInfo(project.sourceName).completeBaseName() + QStringLiteral(".ptx");
    made.language = SourceLanguage::Ptx;
    // Only what nvJitLink understands: NVRTC's other options would each be warned about.
    made.options.arch = project.options.arch;
    made.options.lineInfo = project.options.lineInfo;
    made.options.deviceDebug = project.options.deviceDebug;
    made.options.maxRegisters = project.options.maxRegisters;
    made.arguments = project.arguments;
    made.globals = project.globals;
    made.launch = project.launch;
    made.timing = project.timing;

    const QVector<KernelInfo> entries = parsePtxEntries(ptx);
    QString lowered;
    for (const KernelInfo& entry : entries) {
        if (!loweredKernel.isEmpty() && entry.lowered == loweredKernel)
            lowered = entry.lowered;
    }
    for (const KernelInfo& entry : entries) {
        if (lowered.isEmpty() && kernelDisplayName(entry.lowered) == project.kernel)
            lowered = entry.lowered;
    }
    if (lowered.isEmpty() && !entries.isEmpty())
        lowered = entries.first().lowered;
    // A PTX compile names each entry by kernelDisplayName() (it has no name expressions).
    made.kernel = lowered.isEmpty() ? project.kernel : kernelDisplayName(lowered);
    return made;
}

} // namespace kernelpad
