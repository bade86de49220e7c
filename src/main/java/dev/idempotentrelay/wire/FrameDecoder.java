package dev.idempotentrelay.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import dev.idempotentrelay.telegram.Telegram;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts the channel byte stream into messages framed as {@code LLLL<message>}, LLLL being four ASCII
 * digits. Emits each message as a {@code byte[]} without its prefix. A prefix that is not four digits,
 * or a message too short to hold a header, is unreadable: the connection is closed without a reply.
 * One instance per connection (it keeps state), handed out by {@link FrameDecoderFactory}.
 */
public class FrameDecoder extends ByteToMessageDecoder {

    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < Frames.PREFIX_LENGTH) {
            if (!Frames.digitsSoFar(in, in.readerIndex(), in.readableBytes())) {
                unreadable(ctx, in, "is not 4 digits");
            }
            return;
        }
        int length = Frames.parsePrefix(in, in.readerIndex());
        if (length < Telegram.HEADER_LENGTH) {
            unreadable(ctx, in, length < 0 ? "is not 4 digits" : "declares less than a header");
            return;
        }
        if (in.readableBytes() < Frames.PREFIX_LENGTH + length) {
            return;
        }
        in.skipBytes(Frames.PREFIX_LENGTH);
        byte[] message = new byte[length];
        in.readBytes(message);
        AwaitingReply.requestDecoded(ctx.channel());
        out.add(message);
    }

    private static void unreadable(ChannelHandlerContext ctx, ByteBuf in, String why) {
        LOG.warn("Unreadable frame from {}: its length prefix {}; closing the connection", ctx.channel().remoteAddress(), why);
        in.skipBytes(in.readableBytes());
        ctx.close();
    }
}
