#include "core/scenario/lessons.h"

#include "core/scenario/scenario_io.h"
#include "core/scenario/variants.h"
#include "core/scenario/yaml_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

namespace fog {

PresetLesson readPresetLesson(const std::string& path) {
    PresetLesson out;
    out.path = path;
    out.fileName = std::filesystem::path(path).filename().string();
    std::string text;
    if (std::string why = readScenarioBytes(path, text); !why.empty()) throw ScenarioError({{path, 0, 0, "", why}});
    YamlContext ctx(path);
    YAML::Node root;
    if (!parseScenarioDocument(ctx, text, root)) throw ScenarioError(ctx.diagnostics());
    {
        MapReader m(ctx, root, "");
        if (!m.valid()) throw ScenarioError(ctx.diagnostics());
        std::string kind;
        out.cluster = m.get("kind", kind) && kind == "cluster";
        m.get("name", out.name);
        m.get("repeats", out.repeats);
        const YAML::Node variants = m.node("variants");
        if (variants.IsSequence())
            for (const auto& v : variants)
                if (v.IsMap() && v["name"].IsScalar()) out.variants.push_back(v["name"].Scalar());
        readLesson(m, out.lesson);
        m.remainingKeys(); // the rest is the loaders' business
    }
    if (!ctx.diagnostics().empty()) throw ScenarioError(ctx.diagnostics());
    return out;
}

std::vector<PresetLesson> presetLessons(const std::string& dir, std::vector<std::string>* problems) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const auto ext = e.path().extension().string();
        if (ext == ".yaml" || ext == ".yml") files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    std::vector<PresetLesson> out;
    std::map<int, std::string> byNumber;
    for (const auto& f : files) {
        try {
            PresetLesson l = readPresetLesson(f);
            if (l.lesson.number == 0) continue;
            if (auto it = byNumber.find(l.lesson.number); it != byNumber.end()) {
                if (problems)
                    problems->push_back(l.fileName + ": lesson " + std::to_string(l.lesson.number) + " is also " +
                                        it->second + "'s number");
                continue;
            }
            byNumber[l.lesson.number] = l.fileName;
            out.push_back(std::move(l));
        } catch (const ScenarioError& e) {
            if (problems) {
                const std::string what = e.what();
                problems->push_back(std::filesystem::path(f).filename().string() + ": " + what.substr(0, what.find('\n')));
            }
        }
    }
    std::sort(out.begin(), out.end(),
              [](const PresetLesson& a, const PresetLesson& b) { return a.lesson.number < b.lesson.number; });
    return out;
}

namespace {

/// Text as one Markdown block: surrounding blank lines and trailing spaces removed.
std::string block(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    std::size_t start = 0;
    while (start < s.size() && s[start] == '\n') ++start;
    return s.substr(start);
}

} // namespace

std::string lessonPlainText(const std::string& markdown) {
    std::string out;
    for (char c : block(markdown)) {
        if (c == '*' || c == '`') continue;
        if (c == '\n') c = ' ';
        if (c == ' ' && !out.empty() && out.back() == ' ') continue;
        out += c;
    }
    return out;
}

std::string lessonsMarkdown(const std::vector<PresetLesson>& lessons) {
    std::ostringstream o;
    bool first = true;
    for (const auto& p : lessons) {
        const LessonSpec& l = p.lesson;
        if (!first) o << "\n---\n\n";
        first = false;
        o << "## " << l.number << ". " << l.title << "\n\n";
        o << "**Preset:** `presets/" << p.fileName << "`";
        if (!p.variants.empty()) {
            o << " (variants: ";
            for (std::size_t i = 0; i < p.variants.size(); ++i) o << (i ? ", " : "") << "`" << p.variants[i] << "`";
            o << "; " << p.repeats << (p.repeats == 1 ? " repeat" : " repeats") << ")";
        }
        o << ".\n";
        if (!l.source.empty()) o << "**Source:** " << block(l.source) << "\n";
        o << "\n**The question.** " << block(l.question) << "\n";
        if (!l.lookFor.empty()) o << "\n**What to look for.** " << block(l.lookFor) << "\n";
        if (!l.steps.empty()) {
            o << "\n**Steps in the studio** (*Help > Lessons*):\n\n";
            for (std::size_t i = 0; i < l.steps.size(); ++i) {
                // Continuation lines of a step are indented under its number.
                std::string step = block(l.steps[i]);
                std::string indented;
                for (char c : step) {
                    indented += c;
                    if (c == '\n') indented += "   ";
                }
                o << i + 1 << ". " << indented << "\n";
            }
        }
        if (!l.body.empty()) o << "\n" << block(l.body) << "\n";
    }
    return o.str();
}

} // namespace fog
