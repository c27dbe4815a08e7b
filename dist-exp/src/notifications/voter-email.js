"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isRealStatusChange = void 0;
exports.voterEmail = voterEmail;
const STATUS_WORDS = {
    open: 'Open',
    planned: 'Planned',
    in_progress: 'In progress',
    done: 'Done',
    closed: 'Closed',
};
const words = (status) => STATUS_WORDS[status] ?? status;
const oneLine = (text) => Array.from(text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim()).slice(0, 150).join('');
const isRealStatusChange = (data) => data.previous_status !== data.post.status;
exports.isRealStatusChange = isRealStatusChange;
function voterEmail(data, to, unsubscribeUrl) {
    const { post } = data;
    const title = oneLine(post.title);
    const change = `${words(data.previous_status)} → ${words(post.status)}`;
    const merged = data.merged_into ? `It was merged into “${oneLine(data.merged_into.title)}”.\n\n` : '';
    return {
        to,
        subject: `“${title}” is now ${words(post.status).toLowerCase()}`,
        text: `A post you voted for on ${oneLine(post.board.name)} has a new status.\n\n` +
            `  ${title}\n  ${change}\n\n` +
            merged +
            `See it here: ${post.url}\n\n` +
            `You get this email because you voted for this post.\n` +
            `To get no more of these emails: ${unsubscribeUrl}\n`,
        headers: {
            'List-Unsubscribe': `<${unsubscribeUrl}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
    };
}
//# sourceMappingURL=voter-email.js.map