#include "compile_bench_variants.h"

#include "core/compile/NvrtcApi.h"
#include "core/compile/Toolkit.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include <sys/resource.h>

namespace kernelpad::bench {
namespace {

const QStringList kVariants{QStringLiteral("baseline"),      QStringLiteral("minimal"),
                            QStringLiteral("split"),         QStringLiteral("ewp"),
                            QStringLiteral("templates-pch"), QStringLiteral("ptx"),
                            QStringLiteral("kernelpad-call")};
/// NVRTC's --time rows, in the order it writes them.
const QStringList kPhases{QStringLiteral("CUDA C++ Frontend"), QStringLiteral("NVVM Optimizer"),
                          QStringLiteral("PTX Translation")};

struct Usage {
    double userMs = 0;
    double systemMs = 0;
    double faults = 0;
};

Usage usageNow() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    const auto ms = [](const timeval& t) {
        return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3;
    };
    return {ms(u.ru_utime), ms(u.ru_stime), double(u.ru_minflt + u.ru_majflt)};
}

QStringList variantFlags(const QString& variant, const QString& pchDir, const QString& timeFile) {
    QStringList flags{variant == QLatin1String("ptx") ? QStringLiteral("-arch=compute_90")
                                                      : QStringLiteral("-arch=sm_90")};
    for (const QString& dir : cudaToolkitIncludeDirs())
        flags << QStringLiteral("-I") + dir;
    // As PrecompiledHeaders.cpp asks for it.
    flags << QStringLiteral("-pch") << QStringLiteral("--pch-dir=") + pchDir
          << QStringLiteral("--pch-verbose=false") << QStringLiteral("--diag-suppress=639")
          << QStringLiteral("--time=") + timeFile;
    if (variant == QLatin1String("minimal"))
        flags << QStringLiteral("--minimal");
    else if (variant == QLatin1String("split"))
        flags << QStringLiteral("--split-compile=0");
    else if (variant == QLatin1String("ewp"))
        flags << QStringLiteral("--extensible-whole-program");
    else if (variant == QLatin1String("templates-pch"))
        flags << QStringLiteral("--instantiate-templates-in-pch=true");
    else if (variant == QLatin1String("kernelpad-call"))
        flags << QStringLiteral("--pch-messages=true");
    return flags;
}

/// SHA-256 (16 hex digits) of a CUBIN's .text.* sections, names and bytes in section order:
/// the kernels' machine code, whatever notes or globals the file also holds.
QString textHash(const QByteArray& elf) {
    const auto read = [&elf](qsizetype at, int bytes) -> quint64 {
        quint64 v = 0;
        if (at < 0 || at + bytes > elf.size())
            return 0;
        std::memcpy(&v, elf.constData() + at, size_t(bytes));
        return v;
    };
    const qsizetype shoff = qsizetype(read(0x28, 8));
    const int shentsize = int(read(0x3a, 2)), shnum = int(read(0x3c, 2)),
              shstrndx = int(read(0x3e, 2));
    if (elf.size() < 0x40 || shentsize < 0x40 || shstrndx >= shnum)
        return QStringLiteral("-");
    const qsizetype names = qsizetype(read(shoff + shstrndx * shentsize + 0x18, 8));
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (int i = 0; i < shnum; ++i) {
        const qsizetype h = shoff + qsizetype(i) * shentsize;
        const QByteArray name(elf.constData() +
                              std::min(elf.size() - 1, names + qsizetype(read(h, 4))));
        const qsizetype offset = qsizetype(read(h + 0x18, 8)), size = qsizetype(read(h + 0x20, 8));
        if (!name.startsWith(".text.") || offset + size > elf.size())
            continue;
        hash.addData(name);
        hash.addData(QByteArrayView(elf.constData() + offset, size));
    }
    return QString::fromLatin1(hash.result().toHex().left(16));
}

/// One raw compile; `row` gets its times, phases and machine-code hash.
bool compileOnce(const NvrtcApi& api, const QByteArray& source, const QStringList& flags,
                 const QString& timeFile, bool cubin, QJsonObject* row,
                 const QByteArray& name = "heavy.cu") {
    QFile::remove(timeFile);
    std::vector<QByteArray> bytes;
    std::vector<const char*> pointers;
    for (const QString& flag : flags)
        bytes.push_back(flag.toUtf8());
    for (const QByteArray& b : bytes)
        pointers.push_back(b.constData());
    const Usage before = usageNow();
    QElapsedTimer wall;
    wall.start();
    nvrtcProgram program = nullptr;
    api.nvrtcCreateProgram(&program, source.constData(), name.constData(), 0, nullptr, nullptr);
    const nvrtcResult result =
        api.nvrtcCompileProgram(program, int(pointers.size()), pointers.data());
    QByteArray output;
    if (result == NVRTC_SUCCESS && cubin) {
        size_t size = 0;
        api.nvrtcGetCUBINSize(program, &size);
        output.resize(qsizetype(size));
        api.nvrtcGetCUBIN(program, output.data());
    }
    const double wallMs = double(wall.nsecsElapsed()) / 1e6;
    const Usage after = usageNow();
    if (result != NVRTC_SUCCESS) {
        size_t size = 0;
        api.nvrtcGetProgramLogSize(program, &size);
        QByteArray log(qsizetype(size), '\0');
        api.nvrtcGetProgramLog(program, log.data());
        row->insert(QStringLiteral("log"), QString::fromUtf8(log).left(2000));
    }
    api.nvrtcDestroyProgram(&program);
    row->insert(QStringLiteral("wallMs"), wallMs);
    row->insert(QStringLiteral("userMs"), after.userMs - before.userMs);
    row->insert(QStringLiteral("systemMs"), after.systemMs - before.systemMs);
    row->insert(QStringLiteral("faults"), after.faults - before.faults);
    row->insert(QStringLiteral("text"), cubin ? textHash(output) : QStringLiteral("-"));
    QFile times(timeFile);
    if (times.open(QIODevice::ReadOnly)) {
        for (const QByteArray& line : times.readAll().split('\n')) {
            const QList<QByteArray> cells = line.split(',');
            if (cells.size() >= 3 && kPhases.contains(QString::fromUtf8(cells[1].trimmed())))
                row->insert(QString::fromUtf8(cells[1].trimmed()), cells[2].trimmed().toDouble());
        }
    }
    return result == NVRTC_SUCCESS;
}

double median(QVector<double> values) {
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

} // namespace

int editValue(int edit) {
    static const int salt = [] {
        bool ok = false;
        const int fromParent = qEnvironmentVariableIntValue("KERNELPAD_BENCH_SALT", &ok);
        return ok ? fromParent : int(QRandomGenerator::global()->bounded(1, 1 << 15));
    }();
    return salt * 256 + edit;
}

QProcessEnvironment saltedEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("KERNELPAD_BENCH_SALT"), QString::number(editValue(0) / 256));
    return env;
}

int runVariantChild(const VariantSource& source, const QString& variant, int reps) {
    QString error;
    const NvrtcApi* api = NvrtcApi::load(&error);
    QTemporaryDir dir;
    if (!api || !dir.isValid()) {
        std::fprintf(stderr, "compile_bench: %s\n", qPrintable(error));
        return 1;
    }
    const QString timeFile = dir.filePath(QStringLiteral("time.csv"));
    const QStringList flags = variantFlags(variant, dir.path(), timeFile);
    QJsonArray compiles;
    bool ok = true;
    for (int i = 0; i <= reps && ok; ++i) {
        QString text = source.source;
        text.replace(QStringLiteral("EDIT"),
                     QString::number(editValue(i + 2 + 16 * int(kVariants.indexOf(variant)))));
        QJsonObject row;
        if (variant == QLatin1String("kernelpad-call")) {
            const QByteArray name = QDir::current().absoluteFilePath("heavy.cu").toUtf8();
            std::thread([&] {
                ok = compileOnce(*api, text.toUtf8(), flags, timeFile, true, &row, name);
            }).join();
        } else {
            ok = compileOnce(*api, text.toUtf8(), flags, timeFile, variant != QLatin1String("ptx"),
                             &row);
        }
        compiles.append(row);
    }
    // The machine code compared between variants: one more compile of a constant every variant
    // shares (after the timed ones, so the cache it may hit times nothing).
    QString shared = source.source;
    shared.replace(QStringLiteral("EDIT"), QString::number(editValue(1)));
    QJsonObject codeRow;
    ok = ok && compileOnce(*api, shared.toUtf8(), flags, timeFile, variant != QLatin1String("ptx"),
                           &codeRow);
    QJsonObject out{{QStringLiteral("ok"), ok},
                    {QStringLiteral("compiles"), compiles},
                    {QStringLiteral("text"), codeRow.value(QStringLiteral("text"))}};
    std::fputs(QJsonDocument(out).toJson(QJsonDocument::Compact).constData(), stdout);
    return 0;
}

bool runVariants(const QVector<VariantSource>& sources, int reps, const QString& jsonPath,
                 const QStringList& childArguments) {
    std::printf("edits in the same process: median of %d (wall / user / system ms; NVRTC's "
                "phases FE / NVVM / PTX ms; machine code as the baseline's)\n",
                reps);
    QJsonArray rows;
    bool allOk = true;
    for (const VariantSource& source : sources) {
        QString baselineText;
        for (const QString& variant : kVariants) {
            QProcess child;
            child.setProcessEnvironment(saltedEnvironment());
            child.start(QCoreApplication::applicationFilePath(),
                        childArguments + QStringList{QStringLiteral("--variant-child"), source.name,
                                                     QStringLiteral("--variant"), variant});
            child.waitForFinished(-1);
            const QJsonObject out = QJsonDocument::fromJson(child.readAllStandardOutput()).object();
            const QJsonArray compiles = out.value(QStringLiteral("compiles")).toArray();
            if (!out.value(QStringLiteral("ok")).toBool() || compiles.isEmpty()) {
                allOk = false;
                std::printf("%-20s %-14s FAILED %s\n", qPrintable(source.name), qPrintable(variant),
                            qPrintable(QString::fromUtf8(child.readAllStandardError()) +
                                       compiles.last().toObject().value("log").toString()));
                continue;
            }
            QJsonObject row{{QStringLiteral("name"), source.name},
                            {QStringLiteral("variant"), variant},
                            {QStringLiteral("first"), compiles.first()}};
            QStringList keys{QStringLiteral("wallMs"), QStringLiteral("userMs"),
                             QStringLiteral("systemMs"), QStringLiteral("faults")};
            keys += kPhases;
            QJsonObject edit;
            for (const QString& key : keys) {
                QVector<double> values;
                for (qsizetype i = 1; i < compiles.size(); ++i)
                    values.append(compiles[i].toObject().value(key).toDouble());
                edit.insert(key, median(values));
            }
            const QString text = out.value(QStringLiteral("text")).toString();
            if (variant == QLatin1String("baseline"))
                baselineText = text;
            edit.insert(QStringLiteral("text"), text);
            row.insert(QStringLiteral("edit"), edit);
            rows.append(row);
            const QJsonObject first = compiles.first().toObject();
            std::printf(
                "%-20s %-14s first %6.0f | edit %5.0f / %5.0f / %5.0f  phases %5.0f / %4.0f / "
                "%4.0f  faults %6.0f  code %s\n",
                qPrintable(source.name), qPrintable(variant),
                first.value(QStringLiteral("wallMs")).toDouble(),
                edit.value(QStringLiteral("wallMs")).toDouble(),
                edit.value(QStringLiteral("userMs")).toDouble(),
                edit.value(QStringLiteral("systemMs")).toDouble(),
                edit.value(kPhases[0]).toDouble(), edit.value(kPhases[1]).toDouble(),
                edit.value(kPhases[2]).toDouble(), edit.value(QStringLiteral("faults")).toDouble(),
                variant == QLatin1String("ptx") ? "n/a (PTX)"
                : text == baselineText          ? "same"
                                                : "DIFFERS");
            std::fflush(stdout);
        }
    }
    if (!jsonPath.isEmpty()) {
        QFile out(jsonPath);
        if (!out.open(QIODevice::WriteOnly) ||
            out.write(QJsonDocument(QJsonObject{{QStringLiteral("variants"), rows}}).toJson()) < 0)
            return false;
    }
    return allOk;
}

} // namespace kernelpad::bench
