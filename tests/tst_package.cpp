// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Debian package, built from this build tree with cpack: what it holds, what it depends on, whether its
// desktop entry and AppStream metainfo validate, and whether what it installs runs on its own, away from the
// source and build trees: the extracted CLI plans the demo model and the extracted GUI pictures it offscreen.
// Needs cpack, dpkg-deb, dpkg-shlibdeps and appstreamcli (Debian packages cmake, dpkg, dpkg-dev, appstream);
// skips without them. desktop-file-validate (desktop-file-utils) is used when present.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include "test_paths.h"

namespace {

const QString kAppId = QStringLiteral(SHARDSCOPE_APP_ID);
const QList<int> kIconSizes = {16, 24, 32, 48, 64, 128, 256, 512};

struct Run {
    int exitCode = -1;  // -1: did not start, crashed or timed out
    QString out;
    QString err;
};

Run run(const QString& program, const QStringList& arguments, int timeoutMs,
        const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment(),
        const QString& workingDirectory = {}) {
    QProcess process;
    process.setProcessEnvironment(environment);
    if (!workingDirectory.isEmpty())
        process.setWorkingDirectory(workingDirectory);
    process.start(program, arguments);
    Run result;
    if (!process.waitForStarted(10000)) {
        result.err = QStringLiteral("could not start %1: %2").arg(program, process.errorString());
        return result;
    }
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(5000);
        result.err = QStringLiteral("%1 did not finish within %2 s").arg(program).arg(timeoutMs / 1000);
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

// The package names of a Debian relationship field ("libc6 (>= 2.34), libfoo1 | libbar1") in order.
QStringList packageNames(const QString& field) {
    QStringList names;
    for (const QString& alternative :
         field.split(QRegularExpression(QStringLiteral("[,|]")), Qt::SkipEmptyParts)) {
        const QString name =
            alternative.trimmed().section(QLatin1Char(' '), 0, 0).section(QLatin1Char(':'), 0, 0);
        if (!name.isEmpty())
            names << name;
    }
    return names;
}

// The value of `key` in the [Desktop Entry] group of a .desktop file's text.
QString desktopValue(const QString& text, const QString& key) {
    bool inEntry = false;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1Char('[')))
            inEntry = line.trimmed() == QLatin1String("[Desktop Entry]");
        else if (inEntry && line.startsWith(key + QLatin1Char('=')))
            return line.mid(key.size() + 1).trimmed();
    }
    return {};
}

}  // namespace

class TestPackage : public QObject {
    Q_OBJECT

    QTemporaryDir m_work;
    QString m_dpkgDeb;
    QString m_deb;   // the .deb cpack wrote
    QString m_root;  // the package extracted with dpkg-deb -x (the file system it would install)

    // An environment for the extracted programs: a fresh home, so nothing of this user's settings or
    // workspaces is read or written, and the offscreen Qt platform.
    QProcessEnvironment isolatedEnvironment() const {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        const QString home = m_work.filePath(QStringLiteral("home"));
        QDir().mkpath(home);
        environment.insert(QStringLiteral("HOME"), home);
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/.config"));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/.local/share"));
        environment.insert(QStringLiteral("XDG_CACHE_HOME"), home + QStringLiteral("/.cache"));
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        return environment;
    }

    QString dpkgField(const QString& field) const {
        const Run fields = run(m_dpkgDeb, {QStringLiteral("--field"), m_deb, field}, 60000);
        return fields.exitCode == 0 ? fields.out.trimmed() : QString();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_work.isValid());
        m_dpkgDeb = QStandardPaths::findExecutable(QStringLiteral("dpkg-deb"));
        if (m_dpkgDeb.isEmpty())
            QSKIP("dpkg-deb is not installed (Debian package dpkg)");
        if (QStandardPaths::findExecutable(QStringLiteral("dpkg-shlibdeps")).isEmpty())
            QSKIP("dpkg-shlibdeps is not installed (Debian package dpkg-dev): cpack cannot compute Depends");
        if (QStandardPaths::findExecutable(QStringLiteral("appstreamcli")).isEmpty())
            QSKIP("appstreamcli is not installed (Debian package appstream)");
        const QString cpack = shardscope::testing::cpackPath();
        if (!QFileInfo(cpack).isExecutable())
            QSKIP("cpack is not beside the cmake that configured this build");

        // cpack installs this build tree into a staging folder under -B: the build tree is only read.
        const QString out = m_work.filePath(QStringLiteral("cpack"));
        QElapsedTimer timer;
        timer.start();
        const Run packed = run(cpack,
                               {QStringLiteral("--config"),
                                (shardscope::testing::binaryDir() + QStringLiteral("/CPackConfig.cmake")),
                                QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("-B"), out},
                               600000);
        QVERIFY2(packed.exitCode == 0, qPrintable(packed.out + packed.err));
        const QStringList debs = QDir(out).entryList({QStringLiteral("*.deb")}, QDir::Files);
        QCOMPARE(debs.size(), 1);
        m_deb = QDir(out).filePath(debs.first());
        QCOMPARE(debs.first(),
                 QStringLiteral("shardscope_%1_%2.deb")
                     .arg(QStringLiteral(SHARDSCOPE_VERSION), dpkgField(QStringLiteral("Architecture"))));
        qInfo("cpack -G DEB: %.1f s, %s: %.2f MB", timer.elapsed() / 1000.0, qPrintable(debs.first()),
              QFileInfo(m_deb).size() / 1e6);

        m_root = m_work.filePath(QStringLiteral("root"));
        const Run extracted = run(m_dpkgDeb, {QStringLiteral("-x"), m_deb, m_root}, 120000);
        QVERIFY2(extracted.exitCode == 0, qPrintable(extracted.err));
    }

    // dpkg-deb -c: the programs, the desktop entry, the metainfo and every icon, and nothing else.
    void contents() {
        const Run listing = run(m_dpkgDeb, {QStringLiteral("--contents"), m_deb}, 60000);
        QVERIFY2(listing.exitCode == 0, qPrintable(listing.err));
        QSet<QString> files;
        for (const QString& line : listing.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            if (line.startsWith(QLatin1Char('d')))
                continue;  // directories
            // "-rwxr-xr-x root/root 123 2026-01-01 00:00 ./usr/bin/shardscope"
            QString path = line.section(QLatin1Char(' '), -1);
            if (path.startsWith(QLatin1String("./")))
                path = path.mid(1);
            files.insert(path);
        }
        QStringList expected = {
            QStringLiteral("/usr/bin/shardscope"),
            QStringLiteral("/usr/bin/shardscope-cli"),
            QStringLiteral("/usr/share/applications/%1.desktop").arg(kAppId),
            QStringLiteral("/usr/share/metainfo/%1.metainfo.xml").arg(kAppId),
            QStringLiteral("/usr/share/icons/hicolor/scalable/apps/%1.svg").arg(kAppId),
            QStringLiteral(
                "/usr/share/doc/shardscope/copyright"),  // the licence, in Debian's machine-readable format
        };
        for (int size : kIconSizes)
            expected << QStringLiteral("/usr/share/icons/hicolor/%1x%1/apps/%2.png").arg(size).arg(kAppId);
        for (const QString& file : expected)
            QVERIFY2(files.contains(file), qPrintable(file + " is not in the package"));

        // Nothing else: a stray install rule (headers, static libraries, test programs) would show up here.
        QStringList unexpected =
            QSet<QString>(files).subtract(QSet<QString>(expected.begin(), expected.end())).values();
        unexpected.sort();
        QVERIFY2(unexpected.isEmpty(),
                 qPrintable("not meant for the package: " + unexpected.join(QLatin1String(", "))));
    }

    // The control fields: name, version, section, maintainer, and a Depends computed by dpkg-shlibdeps.
    void control() {
        QCOMPARE(dpkgField(QStringLiteral("Package")), QStringLiteral("shardscope"));
        QCOMPARE(dpkgField(QStringLiteral("Version")), QStringLiteral(SHARDSCOPE_VERSION));
        QCOMPARE(dpkgField(QStringLiteral("Section")), QStringLiteral("science"));
        QVERIFY2(dpkgField(QStringLiteral("Maintainer"))
                     .contains(QRegularExpression(QStringLiteral(".+ <.+@.+>"))),
                 "Maintainer must read `Name <email>`");
        const QString description = dpkgField(QStringLiteral("Description"));
        QVERIFY2(description.count(QLatin1Char('\n')) >= 2,
                 qPrintable("a synopsis and a long description: " + description));

        // Packaging.cmake lists no Depends by hand: every entry comes from the libraries the binaries link,
        // so Qt Widgets, Graphviz's layout and SQLite are there, with the versions their shlibs files give.
        const QString depends = dpkgField(QStringLiteral("Depends"));
        qInfo("Depends: %s", qPrintable(depends));
        const QStringList names = packageNames(depends);
        for (const char* library : {"libc6", "libstdc++6", "libqt6core6", "libqt6gui6", "libqt6widgets6",
                                    "libgvc6", "libcgraph6", "libsqlite3-0"})
            QVERIFY2(names.contains(QLatin1String(library)),
                     qPrintable(
                         QStringLiteral("%1 missing from Depends: %2").arg(QLatin1String(library), depends)));
        QVERIFY2(depends.contains(QRegularExpression(QStringLiteral("libqt6widgets6 \\(>= [0-9]"))),
                 qPrintable("libqt6widgets6 without the version its shlibs give: " + depends));
        QFile config(shardscope::testing::binaryDir() + QStringLiteral("/CPackConfig.cmake"));
        QVERIFY(config.open(QIODevice::ReadOnly));
        const QString settings = QString::fromUtf8(config.readAll());
        QVERIFY(settings.contains(QLatin1String("set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS \"ON\")")));
        QVERIFY2(!settings.contains(QLatin1String("CPACK_DEBIAN_PACKAGE_DEPENDS")),
                 "Depends must not be hand-listed");
    }

    // The desktop entry validates, starts a program the package installs and names an icon it installs, at
    // every size, with PNGs of the size their folder says.
    void desktopEntryAndIcons() {
        const QString desktopPath = m_root + QStringLiteral("/usr/share/applications/%1.desktop").arg(kAppId);
        QFile desktop(desktopPath);
        QVERIFY(desktop.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(desktop.readAll());
        QCOMPARE(desktopValue(text, QStringLiteral("Type")), QStringLiteral("Application"));
        const QString exec = desktopValue(text, QStringLiteral("Exec")).section(QLatin1Char(' '), 0, 0);
        QVERIFY2(QFileInfo(m_root + QStringLiteral("/usr/bin/") + exec).isExecutable(),
                 qPrintable("Exec=" + exec));
        const QString icon = desktopValue(text, QStringLiteral("Icon"));
        QCOMPARE(icon, kAppId);

        QFile svg(m_root + QStringLiteral("/usr/share/icons/hicolor/scalable/apps/%1.svg").arg(icon));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QXmlStreamReader svgReader(&svg);
        QVERIFY(svgReader.readNextStartElement());
        QCOMPARE(svgReader.name().toString(), QStringLiteral("svg"));
        for (int size : kIconSizes) {
            const QImage png(
                m_root + QStringLiteral("/usr/share/icons/hicolor/%1x%1/apps/%2.png").arg(size).arg(icon));
            QVERIFY2(!png.isNull(), qPrintable(QStringLiteral("the %1 px icon does not load").arg(size)));
            QCOMPARE(png.size(), QSize(size, size));
            QVERIFY(png.hasAlphaChannel());
        }

        const QString validator = QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
        if (validator.isEmpty()) {
            qInfo("desktop-file-validate is not installed (Debian package desktop-file-utils): not run");
            return;
        }
        const Run validated = run(validator, {desktopPath}, 60000);
        QVERIFY2(validated.exitCode == 0, qPrintable(validated.out + validated.err));
        QVERIFY2(validated.out.trimmed().isEmpty(),
                 qPrintable("desktop-file-validate says: " + validated.out));
    }

    // The licence: Apache-2.0, said in Debian's machine-readable copyright file and in the metainfo.
    void licence() {
        QFile copyright(m_root + QStringLiteral("/usr/share/doc/shardscope/copyright"));
        QVERIFY(copyright.open(QIODevice::ReadOnly));
        const QByteArray text = copyright.readAll();
        QVERIFY(
            text.startsWith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"));
        QVERIFY(text.contains("License: Apache-2.0"));
        QFile metainfo(m_root + QStringLiteral("/usr/share/metainfo/%1.metainfo.xml").arg(kAppId));
        QVERIFY(metainfo.open(QIODevice::ReadOnly));
        QVERIFY(metainfo.readAll().contains("<project_license>Apache-2.0</project_license>"));
    }

    // appstreamcli validates the installed metainfo; its id, launchable and newest release match the package.
    void metainfo() {
        const QString path = m_root + QStringLiteral("/usr/share/metainfo/%1.metainfo.xml").arg(kAppId);
        const Run validated =
            run(QStandardPaths::findExecutable(QStringLiteral("appstreamcli")),
                {QStringLiteral("validate"), QStringLiteral("--no-net"), QStringLiteral("--no-color"), path},
                120000);
        QVERIFY2(validated.exitCode == 0, qPrintable(validated.out + validated.err));
        QVERIFY2(!validated.out.contains(
                     QRegularExpression(QStringLiteral("^[EWI]: "), QRegularExpression::MultilineOption)),
                 qPrintable("errors, warnings or infos: " + validated.out));

        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        QString id, launchable, firstRelease;
        while (!xml.atEnd()) {
            if (xml.readNext() != QXmlStreamReader::StartElement)
                continue;
            if (xml.name() == QLatin1String("id"))
                id = xml.readElementText();
            else if (xml.name() == QLatin1String("launchable"))
                launchable = xml.readElementText();
            else if (xml.name() == QLatin1String("release") && firstRelease.isEmpty())
                firstRelease = xml.attributes().value(QLatin1String("version")).toString();
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(id, kAppId);
        QCOMPARE(launchable, kAppId + QStringLiteral(".desktop"));
        QVERIFY2(firstRelease == QStringLiteral(SHARDSCOPE_VERSION),
                 qPrintable(QStringLiteral("the newest <release> is %1, the project is %2: add the release")
                                .arg(firstRelease, QStringLiteral(SHARDSCOPE_VERSION))));
    }

    // The extracted CLI, run from an empty folder with a fresh home, prices an expert plan of the demo and
    // searches it into a workspace.
    void installedCliPlansTheDemo() {
        const QString cli = m_root + QStringLiteral("/usr/bin/shardscope-cli");
        const QString folder = m_work.filePath(QStringLiteral("cli"));
        QVERIFY(QDir().mkpath(folder));
        QElapsedTimer timer;
        timer.start();
        const Run evaluated =
            run(cli,
                {QStringLiteral("evaluate"), QStringLiteral("zoo:demo"), QStringLiteral("--mesh"),
                 QStringLiteral("data=2,model=2"), QStringLiteral("--hardware"), QStringLiteral("h100"),
                 QStringLiteral("--plan"), QStringLiteral("expert:megatron"), QStringLiteral("--json")},
                120000, isolatedEnvironment(), folder);
        QVERIFY2(evaluated.exitCode == 0, qPrintable(evaluated.err));
        QJsonParseError error{};
        const QJsonObject evaluation = QJsonDocument::fromJson(evaluated.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QVERIFY2(evaluation.value(QLatin1String("step_time_s")).toDouble() > 0,
                 qPrintable(evaluated.out.left(400)));
        QVERIFY(evaluation.value(QLatin1String("feasible")).toBool());
        // Megatron's tensor parallelism all-reduces the activations: the plan was really applied.
        QVERIFY2(evaluated.out.contains(QLatin1String("\"all-reduce\"")),
                 qPrintable(evaluated.out.left(2000)));

        const QString workspace = QDir(folder).filePath(QStringLiteral("demo.shardscope"));
        const Run searched =
            run(cli,
                {QStringLiteral("search"), QStringLiteral("zoo:demo"), QStringLiteral("--mesh"),
                 QStringLiteral("data=2,model=2"), QStringLiteral("--budget"), QStringLiteral("300it"),
                 QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("--seed"),
                 QStringLiteral("1"), QStringLiteral("--workspace"), workspace},
                300000, isolatedEnvironment(), folder);
        QVERIFY2(searched.exitCode == 0, qPrintable(searched.out + searched.err));
        QVERIFY2(QFileInfo(workspace).size() > 0, "the search kept no workspace");
        const Run listed =
            run(cli, {QStringLiteral("plans"), workspace}, 60000, isolatedEnvironment(), folder);
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        QVERIFY2(listed.out.contains(QLatin1String("megatron")), qPrintable(listed.out.left(2000)));
        qInfo("installed CLI: evaluate + search 300 iterations + plans in %.1f s", timer.elapsed() / 1000.0);
    }

    // The extracted GUI starts offscreen, opens the demo, lays it out and writes a picture of its window.
    void installedGuiPicturesTheDemo() {
        const QString gui = m_root + QStringLiteral("/usr/bin/shardscope");
        const QString picture = m_work.filePath(QStringLiteral("demo.png"));
        QElapsedTimer timer;
        timer.start();
        const Run shown = run(gui, {QStringLiteral("--screenshot"), picture, QStringLiteral("zoo:demo")},
                              180000, isolatedEnvironment(), m_work.path());
        QVERIFY2(shown.exitCode == 0, qPrintable(shown.out + shown.err));
        const QImage image(picture);
        QVERIFY2(!image.isNull(), "no PNG written");
        QVERIFY2(image.width() >= 640 && image.height() >= 400,
                 qPrintable(QStringLiteral("%1x%2").arg(image.width()).arg(image.height())));
        // A window with a laid-out graph, docks and text has many colours; a blank or failed one has a few.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 50, qPrintable(QStringLiteral("only %1 colours").arg(colours.size())));
        qInfo("installed GUI: %dx%d screenshot of zoo:demo in %.1f s", image.width(), image.height(),
              timer.elapsed() / 1000.0);
    }
};

QTEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
