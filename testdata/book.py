"""The article-voting model of Redis in Action, chapter 1, as a site
written in Python with redis-py would run it, for the interop tests: the
library must notice what this code writes into a namespace it keeps.

    book.py --addr HOST:PORT [--prefix P] [--now SECONDS] post USER TITLE LINK [GROUP ...]
    book.py --addr HOST:PORT [--prefix P] [--now SECONDS] vote USER ID

post prints the new article's id. Times are Unix seconds, as time.time()
gives them (--now stands in for the clock).
"""

import argparse
import time

import redis

WEEK = 7 * 86400
VOTE_WEIGHT = 432


def post(r, prefix, now, user, title, link, groups):
    article_id = str(r.incr(prefix + "article:"))
    voted = prefix + "voted:" + article_id
    r.sadd(voted, user)
    r.expire(voted, WEEK)
    article = prefix + "article:" + article_id
    r.hset(article, mapping={"title": title, "link": link, "poster": user, "time": repr(now), "votes": 1})
    r.zadd(prefix + "score:", {article: now + VOTE_WEIGHT})
    r.zadd(prefix + "time:", {article: now})
    for group in groups:
        r.sadd(prefix + "group:" + group, article)
    return article_id


def vote(r, prefix, now, user, article_id):
    article = prefix + "article:" + article_id
    posted = r.zscore(prefix + "time:", article)
    if posted is None or posted < now - WEEK:
        return False
    if r.sadd(prefix + "voted:" + article_id, user):
        r.zincrby(prefix + "score:", VOTE_WEIGHT, article)
        r.hincrby(article, "votes", 1)
        return True
    return False


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--addr", required=True)
    p.add_argument("--prefix", default="")
    p.add_argument("--now", type=float, default=None)
    p.add_argument("op", choices=["post", "vote"])
    p.add_argument("args", nargs="+")
    a = p.parse_args()
    host, port = a.addr.rsplit(":", 1)
    r = redis.Redis(host=host, port=int(port), decode_responses=True)
    now = a.now if a.now is not None else time.time()
    if a.op == "post":
        user, title, link, *groups = a.args
        print(post(r, a.prefix, now, user, title, link, groups))
    else:
        user, article_id = a.args
        print(vote(r, a.prefix, now, user, article_id))


if __name__ == "__main__":
    main()
