#include "core/compile/ListingDiff.h"

#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <vector>

namespace kernelpad {

namespace {

QString collapseBlanks(const QString& text) {
    return text.simplified();
}

/// One step of the edit script: a line kept (both indices), removed (before) or added (after).
struct Edit {
    enum class Op { Keep, Remove, Add };
    Op op;
    int before;
    int after;
};

/// Myers' greedy O(ND) search for the shortest edit script of `a` into `b` ("An O(ND)
/// Difference Algorithm and Its Variations", 1986), with the trace of each step kept for the
/// walk back. False when more than `maxEdits` edits are needed.
bool myers(const std::vector<int>& a, const std::vector<int>& b, int maxEdits,
           std::vector<Edit>* script) {
    const int n = static_cast<int>(a.size());
    const int m = static_cast<int>(b.size());
    const int most = std::min(n + m, maxEdits);
    const int offset = most + 1;
    std::vector<int> v(2 * static_cast<size_t>(most) + 3, 0);
    // trace[d] holds v[-d..d] as it was before step d.
    std::vector<std::vector<int>> trace;
    int found = -1;
    for (int d = 0; d <= most && found < 0; ++d) {
        std::vector<int> snapshot(2 * static_cast<size_t>(d) + 1);
        for (int k = -d; k <= d; ++k)
            snapshot[k + d] = v[offset + k];
        trace.push_back(std::move(snapshot));
        for (int k = -d; k <= d; k += 2) {
            int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                        ? v[offset + k + 1]
                        : v[offset + k - 1] + 1;
            int y = x - k;
            while (x < n && y < m && a[x] == b[y]) {
                ++x;
                ++y;
            }
            v[offset + k] = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
    }
    if (found < 0)
        return false;

    std::vector<Edit> reversed;
    int x = n;
    int y = m;
    for (int d = found; d > 0; --d) {
        const std::vector<int>& prev = trace[d];
        const auto at = [&](int k) { return prev[k + d]; };
        const int k = x - y;
        const int prevK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
        const int prevX = at(prevK);
        const int prevY = prevX - prevK;
        while (x > prevX && y > prevY) {
            --x;
            --y;
            reversed.push_back({Edit::Op::Keep, x, y});
        }
        if (x == prevX)
            reversed.push_back({Edit::Op::Add, -1, prevY});
        else
            reversed.push_back({Edit::Op::Remove, prevX, -1});
        x = prevX;
        y = prevY;
    }
    while (x > 0 && y > 0) {
        --x;
        --y;
        reversed.push_back({Edit::Op::Keep, x, y});
    }
    script->assign(reversed.rbegin(), reversed.rend());
    return true;
}

} // namespace

QString normalizeListingLine(const QString& line, ListingKind kind) {
    QString text = line;
    static const QRegularExpression blockComment(QStringLiteral("/\\*.*?\\*/"));
    if (kind == ListingKind::Source) {
        while (!text.isEmpty() && text.back().isSpace())
            text.chop(1);
        return text;
    }
    if (kind == ListingKind::Sass) {
        // /*0080*/ and /* 0x000fe200078e00ff */: where the instruction sits and its bits
        // change with every edit above it; the instruction is what is compared.
        text.remove(blockComment);
        const int comment = text.indexOf(QLatin1String("//"));
        if (comment >= 0)
            text.truncate(comment);
        return collapseBlanks(text);
    }
    text.remove(blockComment);
    const int comment = text.indexOf(QLatin1String("//"));
    if (comment >= 0)
        text.truncate(comment);
    text = collapseBlanks(text);
    // Source positions move with every edit of the source, the code does not.
    if (text.startsWith(QLatin1String(".loc")) || text.startsWith(QLatin1String(".file")))
        return {};
    return text;
}

ListingDiff diffListings(const QString& before, const QString& after, ListingKind kind) {
    ListingDiff diff;
    QHash<QString, int> ids;
    const auto read = [&](const QString& text, QStringList* shown, std::vector<int>* keys) {
        for (const QString& line : text.split(QLatin1Char('\n'))) {
            const QString normal = normalizeListingLine(line, kind);
            if (normal.isEmpty() && kind != ListingKind::Source)
                continue;
            const auto it = ids.constFind(normal);
            keys->push_back(it != ids.constEnd() ? *it : *ids.insert(normal, ids.size()));
            // nvdisasm pads its columns to about 40 blanks; side by side every column counts.
            if (kind == ListingKind::Source) {
                shown->append(normal);
                continue;
            }
            const bool indented = !line.isEmpty() && line.front().isSpace();
            shown->append(
                (indented && kind == ListingKind::Ptx ? QStringLiteral("  ") : QString()) +
                line.simplified());
        }
    };
    std::vector<int> a;
    std::vector<int> b;
    read(before, &diff.before, &a);
    read(after, &diff.after, &b);

    // The common start and end cost nothing to align and keep Myers' search small.
    const int n = static_cast<int>(a.size());
    const int m = static_cast<int>(b.size());
    int head = 0;
    while (head < n && head < m && a[head] == b[head])
        ++head;
    int tail = 0;
    while (tail < n - head && tail < m - head && a[n - 1 - tail] == b[m - 1 - tail])
        ++tail;
    const std::vector<int> midA(a.begin() + head, a.end() - tail);
    const std::vector<int> midB(b.begin() + head, b.end() - tail);

    std::vector<Edit> script;
    for (int i = 0; i < head; ++i)
        script.push_back({Edit::Op::Keep, i, i});
    std::vector<Edit> middle;
    if (myers(midA, midB, kMaxListingEdits, &middle)) {
        for (const Edit& e : middle)
            script.push_back(
                {e.op, e.before < 0 ? -1 : e.before + head, e.after < 0 ? -1 : e.after + head});
    } else {
        diff.truncated = true;
        for (int i = 0; i < static_cast<int>(midA.size()); ++i)
            script.push_back({Edit::Op::Remove, head + i, -1});
        for (int j = 0; j < static_cast<int>(midB.size()); ++j)
            script.push_back({Edit::Op::Add, -1, head + j});
    }
    for (int t = tail; t > 0; --t)
        script.push_back({Edit::Op::Keep, n - t, m - t});

    // A run of removals and additions between kept lines: pair them in order as changes.
    using Kind = ListingDiffRow::Kind;
    size_t i = 0;
    while (i < script.size()) {
        if (script[i].op == Edit::Op::Keep) {
            diff.rows.append({Kind::Same, script[i].before, script[i].after});
            ++i;
            continue;
        }
        QVector<int> removed;
        QVector<int> added;
        while (i < script.size() && script[i].op != Edit::Op::Keep) {
            if (script[i].op == Edit::Op::Remove)
                removed.append(script[i].before);
            else
                added.append(script[i].after);
            ++i;
        }
        const int pairs = std::min(removed.size(), added.size());
        for (int p = 0; p < pairs; ++p)
            diff.rows.append({Kind::Changed, removed[p], added[p]});
        for (int p = pairs; p < removed.size(); ++p)
            diff.rows.append({Kind::Removed, removed[p], -1});
        for (int p = pairs; p < added.size(); ++p)
            diff.rows.append({Kind::Added, -1, added[p]});
        diff.changed += pairs;
        diff.removed += removed.size() - pairs;
        diff.added += added.size() - pairs;
    }
    return diff;
}

} // namespace kernelpad
