// main() of a fuzz target in the regular build, where libFuzzer is absent (fuzz/CMakeLists.txt):
// feeds the target every seed input under the folders or files named on the command line,
// then, for each seed, a fixed series of mutations (bytes flipped, cut short, duplicated,
// spliced with the next seed), the same on every run. The target's own checks abort on a
// broken promise, so a crash here is a failed test that names the input; scripts/fuzz does the
// coverage-guided search under the sanitizers.

#include <QByteArray>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QStringList>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

constexpr int kMutationsPerSeed = 2000;
constexpr qsizetype kMaxInput = 1 << 20;

void feed(const QByteArray& bytes) {
    // A copy the target can read to its end and no further: fromRawData would hand it Qt's
    // shared empty buffer for no input.
    std::vector<uint8_t> copy(bytes.begin(), bytes.end());
    LLVMFuzzerTestOneInput(copy.data(), copy.size());
}

QByteArray mutated(const QByteArray& seed, const QByteArray& other, QRandomGenerator& random) {
    QByteArray bytes = seed;
    const auto at = [&](qsizetype size) {
        return size > 0 ? qsizetype(random.bounded(int(size))) : qsizetype(0);
    };
    switch (random.bounded(6)) {
    case 0: // flip a few bytes
        for (int i = 0, n = 1 + random.bounded(4); i < n && !bytes.isEmpty(); ++i)
            bytes[at(bytes.size())] = char(random.bounded(256));
        break;
    case 1: // cut short
        bytes.truncate(at(bytes.size()));
        break;
    case 2: // insert a run of one byte
        bytes.insert(at(bytes.size() + 1), qsizetype(1 + random.bounded(64)),
                     char(random.bounded(256)));
        break;
    case 3: // duplicate a slice
        if (!bytes.isEmpty()) {
            const qsizetype from = at(bytes.size());
            bytes.insert(at(bytes.size()), bytes.mid(from, 1 + at(bytes.size() - from)));
        }
        break;
    case 4: // splice with another seed
        bytes = bytes.left(at(bytes.size() + 1)) + other.mid(at(other.size() + 1));
        break;
    default: // one interesting byte
        if (!bytes.isEmpty()) {
            static const char interesting[] = {'\0', '\n', '"', '{', '}', '\\', '\x7f', '\xff'};
            bytes[at(bytes.size())] = interesting[random.bounded(int(sizeof interesting))];
        }
        break;
    }
    return bytes.left(kMaxInput);
}

QStringList seedFiles(int argc, char** argv) {
    QStringList files;
    for (int i = 1; i < argc; ++i) {
        const QString path = QString::fromLocal8Bit(argv[i]);
        if (QFileInfo(path).isDir()) {
            QDirIterator it(path, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext())
                files << it.next();
        } else {
            files << path;
        }
    }
    files.sort(); // the same order, so the same mutations, on every run
    return files;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0) {
        std::fprintf(argc < 2 ? stderr : stdout,
                     "usage: %s SEED_FOLDER_OR_FILE...\nRuns this fuzz target on each seed and "
                     "%d fixed mutations of it; scripts/fuzz fuzzes it for real.\n",
                     argv[0], kMutationsPerSeed);
        return argc < 2 ? 2 : 0;
    }
    const QStringList files = seedFiles(argc, argv);
    QList<QByteArray> seeds;
    for (const QString& path : files) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(file.errorString()));
            return 2;
        }
        seeds << file.read(kMaxInput);
    }
    if (seeds.isEmpty()) {
        std::fprintf(stderr, "no seed inputs found in the paths given\n");
        return 2;
    }
    QRandomGenerator random(20261127);
    qint64 inputs = 0;
    for (qsizetype i = 0; i < seeds.size(); ++i) {
        std::fprintf(stderr, "seed %s\n", qPrintable(files.at(i)));
        feed(seeds.at(i));
        ++inputs;
        for (int m = 0; m < kMutationsPerSeed; ++m, ++inputs)
            feed(mutated(seeds.at(i), seeds.at((i + 1) % seeds.size()), random));
    }
    std::printf("%lld inputs from %lld seeds: no check failed\n", static_cast<long long>(inputs),
                static_cast<long long>(seeds.size()));
    return 0;
}
