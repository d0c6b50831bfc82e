#include "app/cli/figure_module.h"

#include <QCoreApplication>
#include <QLibrary>

#include <filesystem>
#include <iostream>
#include <system_error>
#include <vector>

namespace fog::cli {

namespace {

/// The module, once loaded (never unloaded: the application object's code lives in it).
struct FigureModule {
    QLibrary library;
    FigureApplicationFn application = nullptr;
    FigureRunFn run = nullptr;
    std::string error; ///< why it could not be loaded; empty when loaded
};

FigureModule& module() {
    // Made once and kept (a QLibrary can be neither copied nor unloaded while in use).
    static FigureModule* const m = [] {
        auto* m = new FigureModule;
        // Next to the executable (the build tree), then where `make install` and the .deb put
        // it. The executable's folder, not the working directory: no module from elsewhere.
        std::error_code ec;
        const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
        const std::filesystem::path dir = ec ? std::filesystem::path(".") : exe.parent_path();
        const std::vector<std::filesystem::path> candidates = {dir / FOG_FIGURES_MODULE,
                                                               dir / FOG_FIGURES_INSTALL_DIR / FOG_FIGURES_MODULE};
        std::string tried;
        for (const auto& c : candidates) {
            tried += (tried.empty() ? "" : ", ") + c.lexically_normal().string();
            if (!std::filesystem::exists(c, ec)) continue;
            m->library.setFileName(QString::fromStdString(c.string()));
            if (!m->library.load()) {
                m->error = m->library.errorString().toStdString();
                return m;
            }
            m->application = reinterpret_cast<FigureApplicationFn>(m->library.resolve(kFigureApplicationSymbol));
            m->run = reinterpret_cast<FigureRunFn>(m->library.resolve(kFigureRunSymbol));
            if (!m->application || !m->run)
                m->error = c.string() + " is not the figures module (no " + kFigureRunSymbol + ")";
            return m;
        }
        m->error = "the figures module " + std::string(FOG_FIGURES_MODULE) + ", which is not installed (looked for " + tried + ")";
        return m;
    }();
    return *m;
}

} // namespace

std::unique_ptr<QCoreApplication> makeFigureApplication(int& argc, char** argv) {
    FigureModule& m = module();
    if (!m.error.empty()) return nullptr;
    return std::unique_ptr<QCoreApplication>(m.application(argc, argv));
}

int runFigures(const FigureRequest& request) {
    FigureModule& m = module();
    if (!m.error.empty()) {
        std::cerr << request.prefix << ": plots and reports need " << m.error << "\n";
        return 1;
    }
    return m.run(request);
}

} // namespace fog::cli
