#include "core/spec/events.h"

namespace fog {

const char* toString(EventTrigger::Kind k) {
    switch (k) {
    case EventTrigger::Kind::At:
        return "at";
    case EventTrigger::Kind::Round:
        return "round";
    case EventTrigger::Kind::Accuracy:
        return "accuracy";
    case EventTrigger::Kind::Cost:
        return "cost";
    }
    return "?";
}

const char* toString(TimedEvent::Action a) {
    switch (a) {
    case TimedEvent::Action::Link:
        return "link";
    case TimedEvent::Action::Node:
        return "node";
    case TimedEvent::Action::Offline:
        return "offline";
    case TimedEvent::Action::Online:
        return "online";
    case TimedEvent::Action::Add:
        return "add";
    case TimedEvent::Action::Remove:
        return "remove";
    case TimedEvent::Action::Policy:
        return "policy";
    }
    return "?";
}

} // namespace fog
