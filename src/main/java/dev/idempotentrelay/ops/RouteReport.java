package dev.idempotentrelay.ops;

import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.idempotentrelay.diagram.RoutePictures;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.Header;
import org.apache.camel.NamedNode;
import org.apache.camel.api.management.ManagedCamelContext;
import org.apache.camel.api.management.mbean.ManagedRouteMBean;
import org.apache.camel.model.Model;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.spi.ModelToYAMLDumper;
import org.apache.camel.support.PluginHelper;

/**
 * The answer of GET /routes, as YAML: every route with its file, status, live statistics (exchanges,
 * failures, in flight, mean and max time, from camel-management) and its definition dumped as YAML DSL by
 * camel-yaml-io; then the REST definitions and route configurations, each with its file and YAML. Between them
 * they name every file of the routes folder.
 */
public class RouteReport {

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .build();

    public String yaml(CamelContext context) throws Exception {
        Model model = context.getCamelContextExtension().getContextPlugin(Model.class);
        ModelToYAMLDumper dumper = PluginHelper.getModelToYAMLDumper(context);
        ManagedCamelContext managed = context.getCamelContextExtension().getContextPlugin(ManagedCamelContext.class);

        List<Map<String, Object>> routes = new ArrayList<>();
        List<RouteDefinition> definitions = new ArrayList<>(model.getRouteDefinitions());
        definitions.sort(Comparator.comparing(RouteDefinition::getRouteId));
        for (RouteDefinition route : definitions) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("id", route.getRouteId());
            entry.put("file", RoutePictures.fileOf(route.getResource() != null || route.getRestDefinition() == null
                    ? route : route.getRestDefinition()));
            entry.put("status", context.getRouteController().getRouteStatus(route.getRouteId()).name());
            ManagedRouteMBean stats = managed == null ? null : managed.getManagedRoute(route.getRouteId());
            if (stats != null) {
                Map<String, Object> statistics = new LinkedHashMap<>();
                statistics.put("exchangesTotal", stats.getExchangesTotal());
                statistics.put("exchangesFailed", stats.getExchangesFailed());
                statistics.put("exchangesInflight", stats.getExchangesInflight());
                statistics.put("meanProcessingTimeMs", stats.getMeanProcessingTime());
                statistics.put("maxProcessingTimeMs", stats.getMaxProcessingTime());
                entry.put("statistics", statistics);
            }
            entry.put("yaml", dump(dumper, context, route));
            routes.add(entry);
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("routes", routes);
        report.put("rests", definitions(dumper, context, model.getRestDefinitions()));
        report.put("routeConfigurations", definitions(dumper, context, model.getRouteConfigurationDefinitions()));
        return YAML.writeValueAsString(report);
    }

    /**
     * The YAML DSL of one route or route configuration (GET /routes/{routeId}.yaml), as in {@link #yaml}, or null when
     * the relay has none of that id.
     */
    public String routeYaml(CamelContext context, @Header("routeId") String routeId) throws Exception {
        Model model = context.getCamelContextExtension().getContextPlugin(Model.class);
        NamedNode node = model.getRouteDefinition(routeId);
        if (node == null) {
            node = model.getRouteConfigurationDefinitions().stream().filter(c -> routeId.equals(c.getId())).findFirst().orElse(null);
        }
        return node == null ? null : dump(PluginHelper.getModelToYAMLDumper(context), context, node);
    }

    private static List<Map<String, Object>> definitions(ModelToYAMLDumper dumper, CamelContext context,
            List<? extends NamedNode> nodes) throws Exception {
        List<Map<String, Object>> entries = new ArrayList<>();
        for (NamedNode node : nodes) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("id", node.getId());
            entry.put("file", RoutePictures.fileOf(node));
            entry.put("yaml", dump(dumper, context, node));
            entries.add(entry);
        }
        return entries;
    }

    private static String dump(ModelToYAMLDumper dumper, CamelContext context, NamedNode node) throws Exception {
        return dumper.dumpModelAsYaml(context, node, true, false, false, false);
    }
}
