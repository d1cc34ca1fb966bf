// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Lets QCOMPARE print engine values when a comparison fails (Qt Test finds toString by argument lookup).
#pragma once

#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QtTest>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "shardscope/ir/graph.h"
#include "shardscope/mesh/hardware.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/plan.h"
#include "shardscope/zoo/zoo.h"
#include "test_paths.h"

namespace std {
inline char* toString(const std::string& s) {
    return qstrdup(s.c_str());
}
inline char* toString(const std::vector<std::string>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + v[i];
    return qstrdup((out + "]").c_str());
}
inline char* toString(const std::vector<std::int64_t>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + std::to_string(v[i]);
    return qstrdup((out + "]").c_str());
}
template <typename K, typename V>
char* toString(const std::map<K, V>& m) {
    std::ostringstream out;
    out << "{";
    for (const auto& [k, v] : m)
        out << k << ": " << v << ", ";
    out << "}";
    return qstrdup(out.str().c_str());
}
}  // namespace std

namespace shardscope::ir {
inline char* toString(const TensorType& t) {
    return qstrdup(t.toString().c_str());
}
}  // namespace shardscope::ir

namespace shardscope::testing {

// The mesh `text` ("data=4,model=2") on H100s; a bad mesh ends the test program.
inline mesh::Mesh meshOf(const std::string& text) {
    auto made = mesh::makeMesh(text, *mesh::loadHardware("h100"));
    if (!made)
        qFatal("mesh %s", text.c_str());
    return *made;
}

// A sharding from axis names per dimension: {{"data"}, {}} is P('data', None).
inline plan::TensorSharding shardingOf(const mesh::Mesh& mesh,
                                       const std::vector<std::vector<std::string>>& dims) {
    plan::TensorSharding sharding;
    for (const auto& axes : dims) {
        plan::AxisList list;
        for (const auto& name : axes)
            list.push(*mesh.axisIndex(name));
        sharding.dimensions.push_back(list);
    }
    return sharding;
}

}  // namespace shardscope::testing

namespace shardscope::testing {

inline QByteArray readAll(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

inline void writeAll(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    file.write(bytes);
}

// A file's bytes and modification time: what "left as it was" compares.
struct Snapshot {
    QByteArray hash;
    QDateTime modified;
    bool operator==(const Snapshot&) const = default;
};
inline Snapshot snapshot(const QString& path) {
    return {QCryptographicHash::hash(readAll(path), QCryptographicHash::Sha256),
            QFileInfo(path).fileTime(QFileDevice::FileModificationTime)};
}

// A program's exit code (-1 when it crashed) and its output.
struct Run {
    int exitCode = -1;
    QString out, err;
    // stderr's lines, without the empty last one.
    QStringList errLines() const { return err.split('\n', Qt::SkipEmptyParts); }
};

// Runs `program` to its end; one that does not finish in `timeoutMs` ends the test program.
inline Run runProgram(const QString& program, const QStringList& arguments, int timeoutMs = 120000) {
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForFinished(timeoutMs))
        qFatal("%s did not finish", qPrintable(program));
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

// This build's shardscope-cli with `arguments`.
inline Run cli(const QStringList& arguments) {
    return runProgram(cliPath(), arguments);
}

// The forward graph of zoo model `model` ("gpt:layers=2,scan=true"); a bad name ends the test program.
inline ir::Graph zooGraph(const std::string& model) {
    auto spec = zoo::parseModelSpec(model);
    if (!spec)
        qFatal("%s", spec.errorMessage().c_str());
    auto g = zoo::build(*spec);
    if (!g)
        qFatal("%s", g.errorMessage().c_str());
    return std::move(g).value();
}

}  // namespace shardscope::testing
