"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CUT_LIMITS = exports.DISCORD_LIMITS = exports.SLACK_LIMITS = void 0;
exports.cutAndEscape = cutAndEscape;
exports.escapeSlack = escapeSlack;
exports.slackLinkUrl = slackLinkUrl;
exports.escapeDiscord = escapeDiscord;
exports.slackMessage = slackMessage;
exports.discordMessage = discordMessage;
exports.discordEmbedLength = discordEmbedLength;
exports.chatPingMessage = chatPingMessage;
exports.discordWebhookUrl = discordWebhookUrl;
exports.maskChatUrl = maskChatUrl;
exports.isSlackWebhookUrl = isSlackWebhookUrl;
exports.isDiscordWebhookUrl = isDiscordWebhookUrl;
exports.SLACK_LIMITS = {
    sectionText: 3000,
    contextText: 3000,
    text: 4000,
};
exports.DISCORD_LIMITS = {
    content: 2000,
    embedTitle: 256,
    embedDescription: 4096,
    embedFooter: 2048,
    embedTotal: 6000,
};
exports.CUT_LIMITS = {
    title: 150,
    boardName: 80,
    authorName: 80,
    quote: 300,
    quoteInText: 120,
};
const ELLIPSIS = '…';
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const UNSAFE_CHARS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
function asText(value) {
    if (typeof value === 'string')
        return value;
    if (typeof value === 'number' || typeof value === 'bigint')
        return String(value);
    return '';
}
function oneLine(value) {
    return asText(value).toWellFormed().replace(/\r\n?/g, '\n').replace(UNSAFE_CHARS, '').replace(/\s+/g, ' ').trim();
}
function multiLine(value) {
    return asText(value)
        .toWellFormed()
        .replace(/\r\n?/g, '\n')
        .replace(UNSAFE_CHARS, '')
        .replace(/[^\S\n]+/g, ' ')
        .replace(/ *\n */g, '\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim();
}
function codePoints(text) {
    let n = 0;
    for (const _ of text)
        n++;
    return n;
}
function cutAndEscape(text, maxCodePoints, maxLength = Number.POSITIVE_INFINITY, escape = (s) => s) {
    const whole = escape(text);
    if (codePoints(text) <= maxCodePoints && whole.length <= maxLength)
        return whole;
    const cpBudget = maxCodePoints - 1;
    const lenBudget = maxLength - ELLIPSIS.length;
    let out = '';
    let cp = 0;
    outer: for (const { segment } of segmenter.segment(text)) {
        const escaped = escape(segment);
        const n = codePoints(segment);
        if (cp + n <= cpBudget && out.length + escaped.length <= lenBudget) {
            out += escaped;
            cp += n;
            continue;
        }
        if (out === '') {
            for (const point of segment) {
                const e = escape(point);
                if (cp + 1 > cpBudget || out.length + e.length > lenBudget)
                    break outer;
                out += e;
                cp += 1;
            }
        }
        break;
    }
    return out.trimEnd() + ELLIPSIS;
}
function escapeSlack(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
function slackLinkUrl(url) {
    return url
        .replace(/[|<>"\s]/g, (c) => encodeURIComponent(c))
        .replace(/&/g, '&amp;');
}
function slackLink(url, escapedLabel) {
    const target = slackLinkUrl(url);
    return escapedLabel ? `<${target}|${escapedLabel}>` : `<${target}>`;
}
function escapeDiscord(text) {
    return text.replace(/[\\*_~`|<>[\]()#@]/g, '\\$&');
}
function statusWords(status) {
    return oneLine(status).replace(/_/g, ' ') || 'unknown';
}
function describe(event) {
    const data = (event?.data ?? {});
    const post = (data.post ?? {});
    const base = {
        boardName: oneLine(post.board?.name) || oneLine(post.board?.slug) || 'a board',
        title: oneLine(post.title) || `Post #${asText(post.id)}`,
        adminUrl: asText(post.admin_url),
    };
    const postFacts = [
        `Post #${asText(post.id)}`,
        ...(post.category ? [oneLine(post.category)] : []),
        ...(post.author?.name ? [`by ${oneLine(post.author.name)}`] : []),
    ];
    switch (event?.type) {
        case 'post.created':
            return { ...base, facts: postFacts };
        case 'post.status_changed': {
            const from = statusWords(data.previous_status);
            const to = statusWords(post.status);
            const target = data.merged_into ?? null;
            if (target) {
                return {
                    ...base,
                    status: { from, to },
                    merge: { id: Number(target.id), title: oneLine(target.title) },
                    facts: postFacts,
                };
            }
            return { ...base, status: { from, to }, facts: postFacts };
        }
        case 'post.voted': {
            const votes = Number(post.votes);
            return {
                ...base,
                vote: { voter: oneLine(data.voter?.name) || 'someone', count: Number.isInteger(votes) ? ` (${votes} vote${votes === 1 ? '' : 's'})` : '' },
                facts: [`Post #${asText(post.id)}`],
            };
        }
        case 'comment.created': {
            const comment = (data.comment ?? {});
            const author = oneLine(comment.author?.name) || 'someone';
            return {
                ...base,
                comment: { author, body: multiLine(comment.body), official: comment.official === true },
                facts: [`Comment #${asText(comment.id)} on post #${asText(post.id)}`, ...(comment.official ? ['official'] : [])],
            };
        }
        default:
            throw new Error(`No chat message for event type ${JSON.stringify(event?.type)}`);
    }
}
function slackMessage(event) {
    const d = describe(event);
    const esc = (text, max, maxLength) => cutAndEscape(text, max, maxLength, escapeSlack);
    const board = esc(d.boardName, exports.CUT_LIMITS.boardName, 400);
    const title = esc(d.title, exports.CUT_LIMITS.title, 800);
    const link = slackLink(d.adminUrl, title);
    const statusLine = d.status ? `${escapeSlack(d.status.from)} → ${escapeSlack(d.status.to)}` : '';
    let headline;
    let textHead;
    if (d.merge) {
        const target = esc(d.merge.title, exports.CUT_LIMITS.title, 800);
        headline = `*Merged into #${d.merge.id}* “${target}” (${statusLine}) in *${board}*`;
        textHead = `Merged into #${d.merge.id} “${target}” in ${board}`;
    }
    else if (d.status) {
        headline = `*Status changed:* ${statusLine} in *${board}*`;
        textHead = `Status changed (${statusLine}) in ${board}`;
    }
    else if (d.vote) {
        const voter = esc(d.vote.voter, exports.CUT_LIMITS.authorName, 400);
        headline = `*New vote* by *${voter}* in *${board}*${d.vote.count}`;
        textHead = `New vote by ${voter} in ${board}${d.vote.count}`;
    }
    else if (d.comment) {
        const author = esc(d.comment.author, exports.CUT_LIMITS.authorName, 400);
        headline = `*New comment* by *${author}*${d.comment.official ? ' (official)' : ''} in *${board}*`;
        textHead = `New comment by ${author} in ${board}`;
    }
    else {
        headline = `*New post* in *${board}*`;
        textHead = `New post in ${board}`;
    }
    let section = `${headline}\n*${link}*`;
    let text = `${textHead}: ${link}`;
    if (d.comment) {
        const quote = esc(d.comment.body, exports.CUT_LIMITS.quote, 1500);
        section += `\n${quote
            .split('\n')
            .map((line) => `>${line}`)
            .join('\n')}`;
        const short = esc(oneLine(d.comment.body), exports.CUT_LIMITS.quoteInText, 800);
        text += ` — “${short}”`;
    }
    const context = esc(d.facts.join(' · '), 300, 1500);
    return {
        text,
        blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: section } },
            { type: 'context', elements: [{ type: 'mrkdwn', text: context }] },
        ],
    };
}
const DISCORD_COLORS = {
    created: 0x5865f2,
    status: 0xfee75c,
    merged: 0x99aab5,
    comment: 0x57f287,
    vote: 0xeb459e,
};
function discordMessage(event) {
    const d = describe(event);
    const esc = (text, max, maxLength) => cutAndEscape(text, max, maxLength, escapeDiscord);
    const board = esc(d.boardName, exports.CUT_LIMITS.boardName, 400);
    const title = esc(d.title, exports.CUT_LIMITS.title, exports.DISCORD_LIMITS.embedTitle);
    const statusLine = d.status ? `${escapeDiscord(d.status.from)} → ${escapeDiscord(d.status.to)}` : '';
    let description;
    let color;
    if (d.merge) {
        const target = esc(d.merge.title, exports.CUT_LIMITS.title, 800);
        description = `**Merged into #${d.merge.id}** “${target}” (${statusLine}) in **${board}**`;
        color = DISCORD_COLORS.merged;
    }
    else if (d.status) {
        description = `**Status changed:** ${statusLine} in **${board}**`;
        color = DISCORD_COLORS.status;
    }
    else if (d.vote) {
        description = `**New vote** by **${esc(d.vote.voter, exports.CUT_LIMITS.authorName, 400)}** in **${board}**${d.vote.count}`;
        color = DISCORD_COLORS.vote;
    }
    else if (d.comment) {
        const author = esc(d.comment.author, exports.CUT_LIMITS.authorName, 400);
        description = `**New comment** by **${author}**${d.comment.official ? ' (official)' : ''} in **${board}**`;
        const quote = esc(d.comment.body, exports.CUT_LIMITS.quote, 1500);
        description += `\n${quote
            .split('\n')
            .map((line) => `> ${line}`)
            .join('\n')}`;
        color = DISCORD_COLORS.comment;
    }
    else {
        description = `**New post** in **${board}**`;
        color = DISCORD_COLORS.created;
    }
    const embed = {
        title,
        description,
        color,
        footer: { text: cutAndEscape(d.facts.join(' · '), 300, 1000) },
    };
    if (/^https?:\/\//i.test(d.adminUrl))
        embed.url = d.adminUrl;
    else
        embed.description = `${description}\n${escapeDiscord(d.adminUrl)}`;
    return { embeds: [embed], allowed_mentions: { parse: [] } };
}
function discordEmbedLength(embed) {
    return ((embed.title?.length ?? 0) +
        (embed.description?.length ?? 0) +
        (embed.footer?.text?.length ?? 0) +
        (embed.author?.name?.length ?? 0) +
        (embed.fields ?? []).reduce((n, f) => n + (f.name?.length ?? 0) + (f.value?.length ?? 0), 0));
}
const PING_TEXT = 'Chorus test message: notifications from Chorus arrive in this channel.';
function chatPingMessage(kind) {
    if (kind === 'slack')
        return { text: PING_TEXT, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: PING_TEXT } }] };
    return { content: PING_TEXT, allowed_mentions: { parse: [] } };
}
function discordWebhookUrl(url) {
    const hashAt = url.indexOf('#');
    const withoutHash = hashAt === -1 ? url : url.slice(0, hashAt);
    const queryAt = withoutHash.indexOf('?');
    const base = queryAt === -1 ? withoutHash : withoutHash.slice(0, queryAt);
    const params = queryAt === -1 ? [] : withoutHash.slice(queryAt + 1).split('&');
    const kept = params.filter((p) => p !== '' && p.split('=')[0] !== 'wait');
    return `${base}?${[...kept, 'wait=true'].join('&')}`;
}
const PUBLIC_PATH_PREFIXES = [/^\/services\//, /^\/api(?:\/v\d+)?\/webhooks\//];
function maskChatUrl(url) {
    let parsed;
    try {
        parsed = new URL(url);
    }
    catch {
        return '…';
    }
    const origin = `${parsed.protocol}//${parsed.host}`;
    const path = parsed.pathname;
    const prefix = PUBLIC_PATH_PREFIXES.map((re) => re.exec(path)?.[0]).find(Boolean) ?? '/';
    const rest = path.slice(prefix.length);
    const shown = [...rest].slice(0, Math.min(4, Math.floor(codePoints(rest) / 2))).join('');
    return `${origin}${prefix}${shown}…`;
}
function parseHttps(url) {
    if (typeof url !== 'string')
        return null;
    try {
        const parsed = new URL(url);
        if (parsed.protocol !== 'https:' || parsed.username || parsed.password || parsed.port)
            return null;
        return parsed;
    }
    catch {
        return null;
    }
}
function isSlackWebhookUrl(url) {
    const parsed = parseHttps(url);
    return (parsed !== null &&
        parsed.hostname === 'hooks.slack.com' &&
        /^\/services\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\/?$/.test(parsed.pathname));
}
const DISCORD_HOSTS = new Set([
    'discord.com',
    'discordapp.com',
    'ptb.discord.com',
    'canary.discord.com',
    'ptb.discordapp.com',
    'canary.discordapp.com',
]);
function isDiscordWebhookUrl(url) {
    const parsed = parseHttps(url);
    return (parsed !== null &&
        DISCORD_HOSTS.has(parsed.hostname) &&
        /^\/api(?:\/v\d+)?\/webhooks\/\d+\/[A-Za-z0-9_-]+\/?$/.test(parsed.pathname));
}
//# sourceMappingURL=chat-messages.js.map