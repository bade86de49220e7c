package dev.idempotentrelay.ops;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Whether the core answered the relay's last call to it (any HTTP answer counts), for GET /health. */
public class CoreCallStatus {

    private record LastCall(String call, boolean answered, Instant at, String error) {
    }

    private volatile LastCall last;

    /** Records a call: {@code call} is transfer (POST) or inquiry (GET); {@code error} why it got no answer. */
    public void record(String call, boolean answered, String error) {
        last = new LastCall(call, answered, Instant.now(), answered ? null : error);
    }

    /** answeredLastCall (null before any call), lastCall, lastCallAt and, when unanswered, error. */
    public Map<String, Object> view() {
        LastCall call = last;
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("answeredLastCall", call == null ? null : call.answered());
        view.put("lastCall", call == null ? null : call.call());
        view.put("lastCallAt", call == null ? null : call.at().toString());
        if (call != null && call.error() != null) {
            view.put("error", call.error());
        }
        return view;
    }
}
