"""Upload a local directory store under a key of an S3 bucket (boto3).

    python s3_upload.py ENDPOINT BUCKET KEY DIRECTORY
"""
import os
import sys

import boto3

endpoint, bucket, key, directory = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
for dirpath, _, files in os.walk(directory):
    for name in files:
        path = os.path.join(dirpath, name)
        with open(path, "rb") as f:
            s3.put_object(Bucket=bucket, Key=f"{key}/{os.path.relpath(path, directory)}", Body=f.read())
