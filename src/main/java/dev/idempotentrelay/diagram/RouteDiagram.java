package dev.idempotentrelay.diagram;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.camel.model.BeanDefinition;
import org.apache.camel.model.CatchDefinition;
import org.apache.camel.model.ChoiceDefinition;
import org.apache.camel.model.ExpressionNode;
import org.apache.camel.model.FilterDefinition;
import org.apache.camel.model.LogDefinition;
import org.apache.camel.model.MarshalDefinition;
import org.apache.camel.model.OnExceptionDefinition;
import org.apache.camel.model.OptionalIdentifiedDefinition;
import org.apache.camel.model.ProcessDefinition;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.RouteConfigurationDefinition;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.SendDefinition;
import org.apache.camel.model.SetBodyDefinition;
import org.apache.camel.model.SetHeaderDefinition;
import org.apache.camel.model.SetVariableDefinition;
import org.apache.camel.model.SplitDefinition;
import org.apache.camel.model.ToDynamicDefinition;
import org.apache.camel.model.TryDefinition;
import org.apache.camel.model.WhenDefinition;
import org.apache.camel.model.language.ExpressionDefinition;

/**
 * One route of the model as a PlantUML activity diagram: its {@code from}, then every step in order with its id, each
 * {@code choice} a switch whose cases are its {@code when} branches by id (and the {@code otherwise}), a
 * {@code filter} an if, a {@code doTry} a frame followed by its {@code doCatch} branches with their exceptions, a
 * {@code split} a loop; each hand-off through {@code direct:} names the route it leads to and links to its picture.
 * With counts, each step says how many exchanges reached it and how many failed there, and each branch how many took
 * it, or that none did. A route configuration is drawn the same way: its {@code onException} handlers as branches.
 */
public final class RouteDiagram {

    private static final int DESCRIPTION_WIDTH = 90;
    private static final int DETAIL_WIDTH = 64;
    private static final String HANDOFF = "#D6E9FB";
    private static final String LEDGER = "#FFF1C9";
    private static final String CORE = "#FCDCC8";
    private static final String ENDPOINT = "#E4E4F7";
    private static final String NOT_TAKEN = "#EEEEEE";

    private final Counts counts;
    private final Links links;
    private final Set<String> routeIds;
    private final StringBuilder out = new StringBuilder();
    private int depth;

    private RouteDiagram(Counts counts, Links links, Set<String> routeIds) {
        this.counts = counts;
        this.links = links;
        this.routeIds = routeIds;
    }

    /**
     * The PlantUML source of {@code route}'s picture.
     *
     * @param routeIds the routes a hand-off may lead to: those get a link to their picture
     */
    public static String of(RouteDefinition route, String file, Counts counts, Links links, Set<String> routeIds) {
        RouteDiagram diagram = new RouteDiagram(counts, links, routeIds);
        diagram.begin(route.getRouteId(), route.getDescription(), file);
        diagram.from(route);
        List<OnExceptionDefinition> handlers = new ArrayList<>();
        for (ProcessorDefinition<?> step : route.getOutputs()) {
            if (step instanceof OnExceptionDefinition handler) {
                handlers.add(handler);
            } else {
                diagram.step(step);
            }
        }
        diagram.line("stop");
        diagram.errorsNote(route, handlers);
        return diagram.end();
    }

    /** The PlantUML source of a route configuration's picture: each of its exception handlers a branch. */
    public static String of(RouteConfigurationDefinition configuration, String file, Counts counts, Links links,
            Set<String> routeIds) {
        RouteDiagram diagram = new RouteDiagram(counts, links, routeIds);
        diagram.begin(configuration.getId(), configuration.getDescription(), file);
        diagram.line("start");
        diagram.activity(List.of(Label.bold(Label.text("routeConfiguration " + configuration.getId())),
                Label.small(Label.text("a step of a route that uses it throws"))), ENDPOINT);
        diagram.line("switch (" + Label.text("exception?") + ")");
        for (OnExceptionDefinition handler : configuration.getOnExceptions()) {
            diagram.branch("case", handler, List.of(Label.text("onException"), Label.text(exceptions(handler.getExceptions()))),
                    handler.getOutputs());
        }
        diagram.line("endswitch");
        diagram.line("stop");
        return diagram.end();
    }

    private void begin(String id, String description, String file) {
        line("@startuml");
        line("skinparam shadowing false");
        line("skinparam backgroundColor #FFFFFF");
        line("skinparam ActivityBackgroundColor #F7F7F7");
        line("skinparam ActivityBorderColor #555555");
        line("skinparam ActivityDiamondBackgroundColor #FFFFFF");
        line("skinparam NoteBackgroundColor #FFFDE7");
        line("skinparam TitleFontSize 14");
        line("skinparam TitleFontStyle plain");
        StringBuilder title = new StringBuilder(Label.bold(Label.text(id)));
        if (description != null && !description.isBlank()) {
            Label.wrapped(description, DESCRIPTION_WIDTH).forEach(l -> title.append(Label.NEWLINE).append(Label.small(l)));
        }
        if (file != null) {
            title.append(Label.NEWLINE).append(Label.small(Label.grey(Label.text(file))));
        }
        line("title " + title);
    }

    private String end() {
        line("@enduml");
        return out.toString();
    }

    private void from(RouteDefinition route) {
        line("start");
        Endpoint endpoint = Endpoint.of(route.getInput().getUri());
        List<String> lines = new ArrayList<>();
        lines.add(Label.bold(Label.text("from " + endpointTitle(endpoint))));
        if (!endpoint.detail().isBlank() && !endpoint.detail().equals(endpointTitle(endpoint))) {
            lines.add(Label.small(Label.text(endpoint.detail())));
        }
        if (route.getInput().hasCustomIdAssigned()) {
            lines.add(Label.small(Label.text("id " + route.getInput().getId())));
        }
        StepCount count = counts.route(route.getRouteId());
        if (count != null) {
            lines.add(Label.count(count));
        }
        activity(lines, ENDPOINT);
    }

    private static String endpointTitle(Endpoint endpoint) {
        return switch (endpoint.kind()) {
            case ROUTE -> endpoint.detail();
            case ADMIN -> "the admin endpoint";
            default -> endpoint.name();
        };
    }

    private void steps(List<ProcessorDefinition<?>> steps) {
        for (ProcessorDefinition<?> step : steps) {
            step(step);
        }
    }

    private void step(ProcessorDefinition<?> step) {
        if (step instanceof ChoiceDefinition choice) {
            choice(choice);
        } else if (step instanceof FilterDefinition filter) {
            filter(filter);
        } else if (step instanceof TryDefinition doTry) {
            doTry(doTry);
        } else if (step instanceof SplitDefinition split) {
            split(split);
        } else if (step instanceof OnExceptionDefinition) {
            return; // drawn in the note on errors
        } else if (!step.getOutputs().isEmpty()) {
            container(step);
        } else {
            activity(step);
        }
    }

    private void choice(ChoiceDefinition choice) {
        line("switch (" + heading("choice", choice) + ")");
        for (WhenDefinition when : choice.getWhenClauses()) {
            branch("case", when, List.of(Label.text(Label.clip(expression(when.getExpression()), DETAIL_WIDTH))), when.getOutputs());
        }
        if (choice.getOtherwise() != null) {
            branch("case", choice.getOtherwise(), List.of(), choice.getOtherwise().getOutputs());
        } else {
            line("case (" + Label.grey(Label.text("no when matches")) + ")");
        }
        line("endswitch");
    }

    private void filter(FilterDefinition filter) {
        line("if (" + heading("filter", filter) + Label.NEWLINE
                + Label.small(Label.text(Label.clip(expression(filter.getExpression()), DETAIL_WIDTH))) + ") then ("
                + branchLabel(Label.text("passes"), List.of(), filter.getOutputs()) + ")");
        indented(() -> steps(filter.getOutputs()));
        line("endif");
    }

    private void doTry(TryDefinition doTry) {
        line("partition \"" + Label.text("doTry" + (doTry.hasCustomIdAssigned() ? " " + doTry.getId() : "")) + "\" {");
        indented(() -> steps(doTry.getOutputsWithoutCatches()));
        line("}");
        if (!doTry.getCatchClauses().isEmpty()) {
            line("switch (" + Label.text("exception?") + ")");
            for (CatchDefinition doCatch : doTry.getCatchClauses()) {
                branch("case", doCatch, List.of(Label.text("doCatch"), Label.text(exceptions(doCatch.getExceptions()))),
                        doCatch.getOutputs());
            }
            line("case (" + Label.text("no exception") + ")");
            line("endswitch");
        }
        if (doTry.getFinallyClause() != null) {
            line("partition \"" + Label.text("doFinally") + "\" {");
            indented(() -> steps(doTry.getFinallyClause().getOutputs()));
            line("}");
        }
    }

    private void split(SplitDefinition split) {
        line("while (" + heading("split", split) + Label.NEWLINE + Label.small(Label.text("for each of "
                + Label.clip(expression(split.getExpression()), DETAIL_WIDTH))) + ") is ("
                + branchLabel(Label.text("each"), List.of(), split.getOutputs()) + ")");
        indented(() -> steps(split.getOutputs()));
        line("endwhile");
    }

    private void container(ProcessorDefinition<?> step) {
        line("partition \"" + Label.text(step.getShortName() + (step.hasCustomIdAssigned() ? " " + step.getId() : "")) + "\" {");
        indented(() -> steps(step.getOutputs()));
        line("}");
    }

    /**
     * One branch (a when, an otherwise, a doCatch, an onException): its id in bold (or its kind), the lines that say
     * when it is taken, how many exchanges took it (those that reached its first step), then its steps.
     */
    private void branch(String keyword, OptionalIdentifiedDefinition<?> branch, List<String> when, List<ProcessorDefinition<?>> steps) {
        String name = branch.hasCustomIdAssigned() ? Label.bold(Label.text(branch.getId())) : Label.text(branch.getShortName());
        line(keyword + " (" + branchLabel(name, when, steps) + ")");
        indented(() -> steps(steps));
    }

    private String branchLabel(String name, List<String> when, List<ProcessorDefinition<?>> steps) {
        List<String> lines = new ArrayList<>();
        lines.add(name);
        when.stream().filter(w -> !w.isBlank()).map(Label::small).forEach(lines::add);
        StepCount count = steps.isEmpty() ? null : counts.step(steps.get(0));
        if (count != null) {
            lines.add(Label.count(count));
        }
        return String.join(Label.NEWLINE, lines);
    }

    private void activity(ProcessorDefinition<?> step) {
        List<String> lines = new ArrayList<>();
        String colour = "";
        String what;
        if (step instanceof SendDefinition<?> || step instanceof ToDynamicDefinition) {
            String uri = step instanceof SendDefinition<?> send ? send.getUri() : ((ToDynamicDefinition) step).getUri();
            Endpoint endpoint = Endpoint.of(uri);
            switch (endpoint.kind()) {
                case ROUTE -> {
                    colour = HANDOFF;
                    String target = endpoint.name();
                    String shown = Label.text("\u2192 " + target);
                    lines.add(step.hasCustomIdAssigned() ? Label.bold(Label.text(step.getId())) : null);
                    lines.add(Label.bold(routeIds.contains(target) ? Label.link(links.to(target), shown) : shown));
                    lines.add(Label.small(Label.text(endpoint.detail())));
                    finish(step, colour, lines);
                    return;
                }
                case LEDGER -> {
                    colour = LEDGER;
                    what = "ledger: " + endpoint.detail() + ".sql";
                }
                case CORE -> {
                    colour = CORE;
                    what = endpoint.name() + ": " + endpoint.detail();
                }
                default -> what = (step instanceof ToDynamicDefinition ? "toD " : "to ") + Label.clip(uri, DETAIL_WIDTH);
            }
        } else if (step instanceof ProcessDefinition process) {
            what = "process " + process.getRef();
        } else if (step instanceof BeanDefinition bean) {
            what = "bean " + bean.getRef() + (bean.getMethod() == null ? "" : "." + bean.getMethod());
        } else if (step instanceof SetVariableDefinition set) {
            what = "variable " + set.getName() + " = " + expression(set.getExpression());
        } else if (step instanceof SetHeaderDefinition set) {
            what = "header " + set.getName() + " = " + expression(set.getExpression());
        } else if (step instanceof SetBodyDefinition set) {
            what = "body = " + expression(set.getExpression());
        } else if (step instanceof LogDefinition log) {
            what = "log " + (log.getLoggingLevel() == null ? "INFO" : log.getLoggingLevel()) + ": " + log.getMessage();
        } else if (step instanceof MarshalDefinition marshal) {
            what = "marshal " + (marshal.getDataFormatType() == null ? "" : marshal.getDataFormatType().getDataFormatName());
        } else if (step instanceof ExpressionNode node && node.getExpression() != null) {
            what = step.getShortName() + " " + expression(node.getExpression());
        } else {
            what = step.getLabel();
        }
        String detail = Label.text(Label.clip(what, DETAIL_WIDTH));
        if (step.hasCustomIdAssigned()) {
            lines.add(Label.bold(Label.text(step.getId())));
            lines.add(Label.small(detail));
        } else {
            lines.add(detail);
        }
        finish(step, colour, lines);
    }

    private void finish(ProcessorDefinition<?> step, String colour, List<String> lines) {
        lines.removeIf(l -> l == null);
        String description = step.getDescription();
        if (description != null && !description.isBlank()) {
            Label.wrapped(description, DETAIL_WIDTH).forEach(l -> lines.add(Label.small(Label.grey(l))));
        }
        StepCount count = counts.step(step);
        if (count != null) {
            lines.add(Label.count(count));
            if (count.exchanges() == 0) {
                colour = NOT_TAKEN;
            }
        }
        activity(lines, colour);
    }

    /** An activity box of these lines, with this background colour (none: the default). */
    private void activity(List<String> lines, String colour) {
        line(":" + String.join(Label.NEWLINE, lines) + ";" + (colour.isEmpty() ? "" : " <<" + colour + ">>"));
    }

    /** The diamond of a choice, filter or split: its kind, and its id when it has one of its own. */
    private static String heading(String kind, OptionalIdentifiedDefinition<?> node) {
        return node.hasCustomIdAssigned() ? Label.text(kind + " ") + Label.bold(Label.text(node.getId())) : Label.text(kind);
    }

    /** An expression as a reader of the YAML knows it: a constant's value, a Simple expression's text, else language: text. */
    private static String expression(ExpressionDefinition expression) {
        if (expression == null) {
            return "";
        }
        String text = expression.getExpression() == null ? "" : expression.getExpression().strip();
        String language = expression.getLanguage();
        if (language == null || language.equals("simple") || language.equals("constant")) {
            return text;
        }
        return language + " " + text;
    }

    private static String exceptions(List<String> names) {
        return String.join(", ", names.stream().map(n -> n.substring(n.lastIndexOf('.') + 1)).toList());
    }

    /** A note beside the route on what its errors do: the route configuration it uses, and each exception handler. */
    private void errorsNote(RouteDefinition route, List<OnExceptionDefinition> handlers) {
        String configuration = route.getRouteConfigurationId();
        if (handlers.isEmpty() && configuration == null) {
            return;
        }
        List<String> lines = new ArrayList<>();
        if (configuration != null) {
            String name = Label.text(configuration);
            lines.add(Label.text("errors: routeConfiguration ") + Label.bold(routeIds.contains(configuration)
                    ? Label.link(links.to(configuration), name) : name));
        } else {
            lines.add(Label.text("errors:"));
        }
        for (OnExceptionDefinition handler : handlers) {
            lines.add(Label.small(Label.text(exceptions(handler.getExceptions()) + " \u2192 "
                    + (handler.hasCustomIdAssigned() ? handler.getId() : "onException"))));
        }
        line("floating note right: " + String.join(Label.NEWLINE, lines));
    }

    private void indented(Runnable body) {
        depth++;
        body.run();
        depth--;
    }

    private void line(String text) {
        out.append("  ".repeat(depth)).append(text).append('\n');
    }
}
