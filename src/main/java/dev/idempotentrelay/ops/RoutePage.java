package dev.idempotentrelay.ops;

import dev.idempotentrelay.diagram.Counts;
import dev.idempotentrelay.diagram.Links;
import dev.idempotentrelay.diagram.RoutePictures;
import dev.idempotentrelay.diagram.StepCount;
import dev.idempotentrelay.diagram.Svg;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.CamelContext;
import org.apache.camel.Header;
import org.apache.camel.NamedNode;
import org.apache.camel.api.management.ManagedCamelContext;
import org.apache.camel.api.management.mbean.ManagedRouteMBean;
import org.apache.camel.model.Model;

/**
 * The route pictures of the admin endpoint, drawn from the running relay's route model with its live counts:
 * GET /routes/{routeId}.svg (a route or route configuration), GET /routes.svg (the whole relay) and GET / (a page
 * with all of them, refreshed every few seconds). Each step's counts come from {@link StepCounter}, each route's from
 * camel-management's route statistics (those done and those in flight). A picture links each route it names to
 * {@code /routes/<id>.svg}.
 */
public class RoutePage {

    /** Seconds between two refreshes of the page's pictures. */
    static final int REFRESH_SECONDS = 5;
    private static final Links LINKS = id -> "/routes/" + id + ".svg";

    private final StepCounter steps;
    /** Each route's managed bean, as JMX proxies: making one analyses the bean's interface each time. */
    private final Map<String, ManagedRouteMBean> managedRoutes = new ConcurrentHashMap<>();

    /** @param steps the step counts, or null when the relay counts none (relay.admin.step-counts=false) */
    public RoutePage(StepCounter steps) {
        this.steps = steps;
    }

    /** The SVG of the route or route configuration {@code routeId}, or null when the relay has none of that id. */
    public String routeSvg(CamelContext context, @Header("routeId") String routeId) {
        String source = pictures(context).source(routeId, counts(context), LINKS);
        return source == null ? null : Svg.draw(source);
    }

    /** The SVG of the whole relay: its routes, their hand-offs and the endpoints they meet. */
    public String relaySvg(CamelContext context) {
        return Svg.draw(pictures(context).relaySource(context.getName(), counts(context), LINKS));
    }

    /**
     * The HTML page: the whole relay's picture, then each route's, in reading order, each with links to its picture
     * and its YAML. Its pictures are in the page itself, so that it reads without a script; a few lines of script
     * (in the page, none from elsewhere) draw again every few seconds those in view.
     */
    public String page(CamelContext context) {
        RoutePictures pictures = pictures(context);
        Counts counts = counts(context);
        StringBuilder html = new StringBuilder(256 * 1024);
        html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
                .append(escape(context.getName())).append(": routes</title>\n")
                .append("<noscript><meta http-equiv=\"refresh\" content=\"").append(REFRESH_SECONDS * 2).append("\"></noscript>\n")
                .append("<style>\n")
                .append("body { font-family: sans-serif; margin: 1.5em; color: #222; }\n")
                .append("section { border-top: 1px solid #ccc; margin-top: 1.5em; }\n")
                .append("h2 { font-size: 1.1em; margin: 0.8em 0 0.3em; }\n")
                .append("h2 small { font-weight: normal; color: #6b6b6b; }\n")
                .append("nav a, h2 a { margin-right: 0.8em; }\n")
                .append(".picture svg { max-width: 100%; height: auto; }\n")
                .append("</style>\n</head>\n<body>\n<h1>").append(escape(context.getName())).append(": how a telegram travels</h1>\n")
                .append("<p>Every route of this relay, drawn from its running route model, with the exchanges each step took ")
                .append("since the relay started. The pictures in view are drawn again every ").append(REFRESH_SECONDS)
                .append(" s. <a href=\"/routes\">All routes as YAML</a></p>\n<nav>");
        for (String id : pictures.ids()) {
            html.append("<a href=\"#").append(escape(id)).append("\">").append(escape(id)).append("</a> ");
        }
        html.append("</nav>\n");
        section(html, RoutePictures.RELAY, "The whole relay", null, "/routes.svg",
                Svg.draw(pictures.relaySource(context.getName(), counts, LINKS)));
        for (String id : pictures.ids()) {
            section(html, id, id, pictures.fileOf(id), LINKS.to(id), Svg.draw(pictures.source(id, counts, LINKS)));
        }
        html.append("<script>\n")
                .append("setInterval(function () {\n")
                .append("  if (document.hidden) return;\n")
                .append("  document.querySelectorAll('section[data-picture]').forEach(function (section) {\n")
                .append("    var box = section.getBoundingClientRect();\n")
                .append("    if (box.bottom < 0 || box.top > window.innerHeight) return;\n")
                .append("    fetch(section.dataset.picture, {cache: 'no-store'})\n")
                .append("      .then(function (answer) { return answer.ok ? answer.text() : null; })\n")
                .append("      .then(function (svg) { if (svg) section.querySelector('.picture').innerHTML = svg; })\n")
                .append("      .catch(function () {});\n")
                .append("  });\n")
                .append("}, ").append(REFRESH_SECONDS * 1000).append(");\n")
                .append("</script>\n</body>\n</html>\n");
        return html.toString();
    }

    private static void section(StringBuilder html, String anchor, String title, String file, String picture, String svg) {
        html.append("<section id=\"").append(escape(anchor)).append("\" data-picture=\"").append(escape(picture)).append("\">\n")
                .append("<h2>").append(escape(title));
        if (file != null) {
            html.append(" <small>").append(escape(file)).append("</small>");
        }
        html.append(" <small><a href=\"").append(escape(picture)).append("\">picture</a>");
        if (!RoutePictures.RELAY.equals(anchor)) {
            html.append("<a href=\"/routes/").append(escape(anchor)).append(".yaml\">YAML</a>");
        }
        html.append("</small></h2>\n<div class=\"picture\">")
                .append(svg.startsWith("<?xml") ? svg.substring(svg.indexOf("?>") + 2) : svg)
                .append("</div>\n</section>\n");
    }

    private static RoutePictures pictures(CamelContext context) {
        return new RoutePictures(context.getCamelContextExtension().getContextPlugin(Model.class));
    }

    /** Each step's counts from the step counter, each route's from its managed route's statistics. */
    private Counts counts(CamelContext context) {
        ManagedCamelContext managed = context.getCamelContextExtension().getContextPlugin(ManagedCamelContext.class);
        return new Counts() {
            @Override
            public StepCount step(NamedNode node) {
                return steps == null ? null : steps.of(node);
            }

            @Override
            public StepCount route(String routeId) {
                ManagedRouteMBean route = managed == null ? null
                        : managedRoutes.computeIfAbsent(routeId, id -> managed.getManagedRoute(id));
                // those in flight too, as the steps count an exchange when it reaches them: the page's own route is one
                return route == null ? null
                        : new StepCount(route.getExchangesTotal() + route.getExchangesInflight(), route.getExchangesFailed());
            }
        };
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
